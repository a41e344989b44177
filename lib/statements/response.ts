import "server-only";
import type { StatementFormat } from "./hrefs";
import type { RenderedStatement } from "./render";

/** A rendered statement as a download: named by its number, never cached. */
export function documentResponse(rendered: RenderedStatement, format: StatementFormat): Response {
  const body = format === "pdf" ? new Uint8Array(rendered.pdf) : rendered.csv;
  return new Response(body, {
    headers: {
      "Content-Type": format === "pdf" ? "application/pdf" : "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${rendered.doc.label}.${format}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
