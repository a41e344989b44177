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
 * Fields never sent back in an answer's `values` (lib/actions.ts echoValues) nor kept by a form from what it sent:
 * secrets, payout details and an imported file's text (their forms keep what was typed or chosen on the page itself).
 */
export const SECRET_FIELD = /password|secret|token|iban|bic|accountHolder|paypal|wise|csv|^text$/i;

/** What a form sent, as an answer's `values`: its text fields but SECRET_FIELD's and the framework's own. */
export function typedValues(form: FormData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of form.entries())
    if (typeof value === "string" && !SECRET_FIELD.test(key) && !key.startsWith("$ACTION")) out[key] = value;
  return out;
}
