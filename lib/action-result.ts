import type { AppErrorCode } from "./errors";

/** What every server action answers (lib/actions.ts); safe to import from client components. */
export type ActionResult<T = undefined> =
  | { ok: true; message?: string; data?: T }
  | {
      ok: false;
      code: AppErrorCode | "INTERNAL";
      message: string;
      fieldErrors?: Record<string, string>;
      /** What was typed, so a form can show it again (React resets a form after its action); never secrets. */
      values?: Record<string, string>;
    };

/** The hidden form field naming the game a page was showing when its form was submitted. */
export const EXPECTED_GAME_FIELD = "_game";

/** The refusal of a form sent for a game other than the one the session is on now (another tab switched game). */
export const GAME_SWITCHED =
  "The game was switched in another tab since this page was opened. Reload the page and try again.";

/** Shown when an action's answer never came (the connection dropped, or the server failed before answering). */
export const UNANSWERED_ACTION =
  "Something went wrong and the action may not have completed. Reload the page to check, then try again.";

/**
 * Fields never sent back in an answer's `values` nor kept by a form from what it sent: secrets, payout details and an
 * imported file's text (a profiles CSV, a provider's results, which name payees and their accounts); their forms keep
 * what was typed or chosen on the page itself.
 */
export const SECRET_FIELD = /password|secret|token|iban|bic|accountHolder|paypal|wise|csv|^text$/i;

/** FormData to a plain object: repeated keys become arrays, files are dropped, and so are the framework's own. */
export function formDataToObject(form: FormData): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(form.keys())) {
    if (key.startsWith("$ACTION")) continue;
    const values = form.getAll(key).filter((v): v is string => typeof v === "string");
    out[key] = values.length > 1 ? values : (values[0] ?? "");
  }
  return out;
}

/** What an answer's `values` may hold of what was sent: its single text fields but SECRET_FIELD's. */
export function echoValues(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw || typeof raw !== "object") return out;
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value === "string" && !SECRET_FIELD.test(key)) out[key] = value;
  }
  return out;
}

/** What a form sent, as an answer's `values` (echoValues): a field that held only a file is none. */
export function typedValues(form: FormData): Record<string, string> {
  const sent = formDataToObject(form);
  for (const key of Object.keys(sent)) if (!form.getAll(key).some((v) => typeof v === "string")) delete sent[key];
  return echoValues(sent);
}

/** Next's redirect and not-found signals, known by their digest ("NEXT_REDIRECT;…", "NEXT_HTTP_ERROR_FALLBACK;404"). */
export function isFrameworkNavigation(error: unknown): boolean {
  const digest = (error as { digest?: unknown } | null)?.digest;
  return typeof digest === "string" && digest.startsWith("NEXT_");
}
