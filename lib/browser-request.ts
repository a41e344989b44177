import "server-only";

/**
 * A person's browser following a download link, rather than a script or the CLI: it asks for HTML first. A refused
 * download then gets a page of the app saying why (a JSON body would be saved as the "file" or shown raw).
 */
export function isBrowserNavigation(request: Request): boolean {
  const mode = request.headers.get("sec-fetch-mode");
  if (mode && mode !== "navigate") return false;
  return (request.headers.get("accept") ?? "")
    .split(",")
    .some((part) => part.trim().toLowerCase().startsWith("text/html"));
}
