import type { MiddlewareHandler } from "hono";
import { ApiError, errorBody } from "../errors";
import type { GameState } from "../ledger/types";
import type { AppContext, AppEnv, EmulatorRuntime } from "../runtime";
import { formatInstant } from "../time";
import { rateLimitError } from "./rate-limits";

export const SANDBOX_PREFIX = "/sandbox";

/** The path of a call without the sandbox prefix (sandbox and production paths are identical after it). */
export function servicePath(path: string): string {
  return path === SANDBOX_PREFIX || path.startsWith(`${SANDBOX_PREFIX}/`)
    ? path.slice(SANDBOX_PREFIX.length) || "/"
    : path;
}

export function renderError(c: AppContext, runtime: EmulatorRuntime, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(errorBody(error, formatInstant(runtime.ledger.now)), error.status as 400);
}

const DEFAULT_FAULT_CODES: Record<string, [string, string]> = {
  "500": ["INTERNAL_ERROR", "An internal error occurred; retry with the same key."],
  "502": ["PROCESSOR_ERROR", "The upstream processor failed; retry with the same key."],
  "503": ["service_unavailable", "The service is temporarily unavailable; retry with the same key."],
};

/**
 * Injected faults (admin API). 429/5xx answer without touching state; hang keeps the socket open without an answer
 * until hang_ms passes (then drops it) or the emulator stops; drop runs the call, then destroys the socket so the
 * caller never sees the answer; delay runs the call, then holds its answer until hang_ms passes (then sends it) or the
 * emulator stops.
 */
export function faultMiddleware(runtime: EmulatorRuntime): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const fault = runtime.faults.take(c.req.method, servicePath(c.req.path));
    if (!fault) return next();
    if (fault.kind === "429") {
      const code =
        fault.errorCode ?? (servicePath(c.req.path).includes("/reporting/") ? "rate_limit_exceeded" : "RATE_LIMITED");
      throw rateLimitError(code, "Too many requests.", fault.retryAfter * 1000, !Number.isInteger(fault.retryAfter));
    }
    // The spec's circuit breaker: "503 | body {status: service_unavailable}, no error codes". A 503 given a code (a
    // refund's FLOW_PAUSED or PROCESSOR_NOT_CONFIGURED) answers with the error envelope.
    if (fault.kind === "503" && fault.errorCode === null && fault.errorCodePublic === null)
      return c.json({ status: "service_unavailable" }, 503);
    if (fault.kind === "500" || fault.kind === "502" || fault.kind === "503") {
      const [code, message] = DEFAULT_FAULT_CODES[fault.kind] as [string, string];
      const extra: Record<string, unknown> = {};
      const errorCode = fault.errorCode ?? code;
      if (fault.errorCodePublic) extra.error_code_public = fault.errorCodePublic;
      else if (errorCode === "PROCESSOR_ERROR") extra.error_code_public = "PROCESSOR_ERROR";
      throw new ApiError(Number(fault.kind), errorCode, message, extra);
    }
    const socket = c.env.incoming.socket;
    const hold = () =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          runtime.hangs.delete(done);
          resolve();
        };
        const timer = setTimeout(done, fault.hangMs);
        runtime.hangs.add(done);
      });
    if (fault.kind === "hang") {
      await hold();
      socket.destroy();
      return c.body(null, 504);
    }
    if (fault.kind === "delay") {
      await next();
      await hold();
      return;
    }
    await next();
    socket.destroy();
  };
}

function acceptedFor(game: GameState, sandbox: boolean): boolean {
  return game.environment === "both" || (game.environment === "sandbox") === sandbox;
}

/**
 * Spec, Authentication: "Missing or wrong key: 401 with error_code INVALID_GAME_SECRET. A game whose status is neither
 * live nor testing: 403." The previous key "keeps working for 7 days after rotation" (emulator clock).
 */
export function authMiddleware(runtime: EmulatorRuntime): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.req.header("x-game-secret-key");
    const sandbox = servicePath(c.req.path) !== c.req.path;
    const ledger = runtime.ledger;
    let found: GameState | undefined;
    if (key) {
      for (const game of ledger.games.values()) {
        if (!acceptedFor(game, sandbox)) continue;
        const previousValid =
          game.previousSecret === key &&
          game.previousSecretValidUntil !== null &&
          ledger.now < game.previousSecretValidUntil;
        if (game.secret === key || previousValid) {
          found = game;
          break;
        }
      }
    }
    if (!found) throw new ApiError(401, "INVALID_GAME_SECRET", "Missing or invalid X-Game-Secret-Key.");
    if (found.status !== "live" && found.status !== "testing") {
      throw new ApiError(
        403,
        "GAME_NOT_ACTIVE",
        `The game is ${found.status}; only live and testing games are served.`,
      );
    }
    c.set("game", found);
    c.set("sandbox", sandbox);
    return next();
  };
}

/** Reads a JSON body. Empty means `{}`; anything but a JSON object is refused with `code`. */
export async function readJsonObject(c: AppContext, code: string): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(400, code, "The body is not valid JSON.");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ApiError(400, code, "The body must be a JSON object.");
  }
  return value as Record<string, unknown>;
}

/** An integer query value within min..max, or null when absent; throws `code` when present but not one. */
export function queryInteger(
  value: string | undefined,
  code: string,
  name: string,
  min: number,
  max: number,
): number | null {
  if (value === undefined) return null;
  if (!/^-?\d+$/.test(value)) throw new ApiError(400, code, `${name} must be an integer.`);
  const n = Number(value);
  if (n < min || n > max) throw new ApiError(400, code, `${name} must be between ${min} and ${max}.`);
  return n;
}

/**
 * An integer query value clamped into min..max, or null when absent; throws `code` only when it is not an integer.
 * Any number of digits is read (a huge value clamps to max, a negative one to min).
 */
export function queryClampedInteger(
  value: string | undefined,
  code: string,
  name: string,
  min: number,
  max: number,
): number | null {
  if (value === undefined) return null;
  if (!/^-?\d+$/.test(value)) throw new ApiError(400, code, `${name} must be an integer.`);
  const n = Number(value);
  return Math.min(Math.max(n, min), max);
}

export function queryBoolean(value: string | undefined, name: string): boolean {
  if (value === undefined || value === "" || value === "false" || value === "0") return false;
  if (value === "true" || value === "1") return true;
  throw new ApiError(400, "INVALID_FIELD_VALUE", `${name} must be true or false.`);
}
