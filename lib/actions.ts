import "server-only";
import { revalidatePath } from "next/cache";
import type { z } from "zod";
import { isAppError } from "@/lib/errors";
import { fieldErrorText, readsAfterLabel } from "@/lib/format";
import { log } from "@/lib/log";
import { getDb } from "@/db";
import { getSelectedGameId } from "@/db/queries/games";
import { AppError } from "@/lib/errors";
import {
  type ActionResult,
  EXPECTED_GAME_FIELD,
  echoValues,
  formDataToObject,
  GAME_SWITCHED,
  isFrameworkNavigation,
} from "./action-result";
import { type CurrentUser, requireRole } from "./auth/session";
import type { Role } from "./auth/roles";

export { type ActionResult, EXPECTED_GAME_FIELD, echoValues, formDataToObject } from "./action-result";

export type ActionContext = { user: CurrentUser };

type Handler<I, T> = (input: I, ctx: ActionContext) => Promise<ActionResult<T> | undefined>;

/** A server action, with the role it requires recorded so tests can check every one of them. */
export type GuardedAction<T> = ((...args: unknown[]) => Promise<ActionResult<T>>) & { requiredRole: Role };

export function fieldErrorsOf(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = issue.path.join(".") || "form";
    out[field] ??= issue.message;
  }
  return out;
}

/** Words written in capitals wherever a field's name holds them. */
const ACRONYMS = new Set(["bic", "csv", "eur", "fx", "iban", "id", "smtp", "url", "usd"]);

/** A field's name as a form would label it: "eurRate" → "EUR rate", "executionDate" → "Execution date". */
export function fieldLabel(field: string): string {
  const words = (field.split(".").at(-1) ?? field)
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .toLowerCase()
    .split(" ")
    .filter((word) => word !== "")
    .map((word) => (ACRONYMS.has(word) ? word.toUpperCase() : word));
  const text = words.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "Email must be an email address; Role must be one of ..." — every message names its field in words. */
export function describeFieldErrors(fieldErrors: Record<string, string>): string {
  return Object.entries(fieldErrors)
    .map(([field, message]) => fieldErrorText(fieldLabel(field), message))
    .join("; ");
}

/** An imported file's text: its reader refuses a NUL on the line that holds it, and lists the line. */
const FILE_FIELD = /csv|^text$/i;

/**
 * Fields holding a NUL character, which PostgreSQL's text cannot store (a pasted or crafted value): refused on the
 * field before any schema reads them, instead of failing the write with an error that says nothing of the field.
 */
export function unstorableFields(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw || typeof raw !== "object") return out;
  for (const [key, value] of Object.entries(raw)) {
    if (FILE_FIELD.test(key)) continue;
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === "string" && v.includes("\u0000")))
      out[key] = "holds a NUL character, which is not accepted: type it again";
  }
  return out;
}

/** The answer to input that does not parse: a message per field, and what was typed. */
function invalidInput<T>(fieldErrors: Record<string, string>, raw: unknown): ActionResult<T> {
  return {
    ok: false,
    code: "INVALID_INPUT",
    message: describeFieldErrors(fieldErrors),
    fieldErrors,
    values: echoValues(raw),
  };
}

/**
 * The answer of an action that threw, with what was typed: a refusal (AppError) as it was made, with the field it
 * names where `withField`; anything else logged and answered in general terms. Next.js signals redirect() and
 * notFound() by throwing: those pass through.
 */
function failureOf<T>(error: unknown, raw: unknown, options: { action: string; withField: boolean }): ActionResult<T> {
  if (isAppError(error)) {
    // A refusal of one field written as what follows its name ("is before the window began ..."): named at the top.
    const fragmentOf = readsAfterLabel(error.message) ? error.field : undefined;
    return {
      ok: false,
      code: error.code,
      message: fragmentOf ? fieldErrorText(fieldLabel(fragmentOf), error.message) : error.message,
      fieldErrors: options.withField && error.field ? { [error.field]: error.message } : undefined,
      values: echoValues(raw),
    };
  }
  if (isFrameworkNavigation(error)) throw error;
  log.error("action failed", { action: options.action, error });
  return {
    ok: false,
    code: "INTERNAL",
    // Said for every action, money moved or not: what was done shows on the page once reloaded.
    message:
      "Something went wrong, and the error was logged. Reload the page to see whether it was done before trying again.",
    values: echoValues(raw),
  };
}

/**
 * The selected game is kept per session, so all tabs share it: a form rendered for game X and submitted after another
 * tab switched to game Y must not act on Y. Forms that act on "the selected game" carry the game they showed.
 */
async function assertExpectedGame(raw: unknown, user: CurrentUser): Promise<void> {
  const given = raw && typeof raw === "object" ? (raw as Record<string, unknown>)[EXPECTED_GAME_FIELD] : undefined;
  // Named more than once (a field repeated in a form), every one must be the selected game.
  const expected = (Array.isArray(given) ? given : [given]).filter(
    (g): g is string => typeof g === "string" && g !== "",
  );
  if (expected.length === 0) return;
  const selected = await getSelectedGameId(getDb(), user.sessionId);
  if (expected.some((game) => game !== selected)) {
    throw new AppError("CONFLICT", GAME_SWITCHED);
  }
}

/**
 * The one way to write a server action: check the session and role, validate the input with zod, run the
 * handler, and return a small result object. Errors meant for the user are AppErrors; anything else is logged
 * and shown as a generic message. The payload is the last argument, so the action works as a form action, with
 * useActionState (previous state first) and when called directly.
 */
export function defineAction<S extends z.ZodType, T = undefined>(
  options: { role: Role; input: S; name: string },
  handler: Handler<z.output<S>, T>,
): GuardedAction<T> {
  const action = async (...args: unknown[]): Promise<ActionResult<T>> => {
    const payload = args.at(-1);
    const raw = payload instanceof FormData ? formDataToObject(payload) : (payload ?? {});
    try {
      const user = await requireRole(options.role, options.name);
      await assertExpectedGame(raw, user);
      const unstorable = unstorableFields(raw);
      if (Object.keys(unstorable).length > 0) return invalidInput(unstorable, raw);
      const parsed = options.input.safeParse(raw);
      if (!parsed.success) return invalidInput(fieldErrorsOf(parsed.error), raw);
      return (await handler(parsed.data, { user })) ?? { ok: true };
    } catch (error) {
      return failureOf(error, raw, { action: options.name, withField: true });
    }
  };
  return Object.assign(action, { requiredRole: options.role });
}

/** The only kind of action reachable without a session (signing in); it states why. */
export function definePublicAction<S extends z.ZodType, T = undefined>(
  options: { reason: string; input: S; name: string },
  handler: (input: z.output<S>) => Promise<ActionResult<T> | undefined>,
): ((...args: unknown[]) => Promise<ActionResult<T>>) & { requiredRole: "public"; publicReason: string } {
  const action = async (...args: unknown[]): Promise<ActionResult<T>> => {
    const payload = args.at(-1);
    const raw = payload instanceof FormData ? formDataToObject(payload) : (payload ?? {});
    try {
      const unstorable = unstorableFields(raw);
      if (Object.keys(unstorable).length > 0) return invalidInput(unstorable, raw);
      const parsed = options.input.safeParse(raw);
      if (!parsed.success) return invalidInput(fieldErrorsOf(parsed.error), raw);
      return (await handler(parsed.data)) ?? { ok: true };
    } catch (error) {
      return failureOf(error, raw, { action: options.name, withField: false });
    }
  };
  return Object.assign(action, { requiredRole: "public" as const, publicReason: options.reason });
}

/**
 * Runs a change that is refused when what the page showed has moved on (CONFLICT: a colleague closed the window or
 * queued the event again first): the pages under `path` are then drawn again with the refusal, which is read beside
 * what can be done now rather than beside the button just refused.
 */
export async function redrawnOnConflict<T>(path: string, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (isAppError(error) && error.code === "CONFLICT") revalidatePath(path, "layout");
    throw error;
  }
}
