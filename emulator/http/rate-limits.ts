import { ApiError } from "../errors";
import { MINUTE } from "../time";

/**
 * Rate limits of the spec, by wall clock (they pace real calls, not the emulator's business clock).
 * documented: the spec's numbers per minute; off: none; scaled:K: the same numbers per (60/K) seconds, so tests
 * meet a limit and its retry_after K times faster.
 */
export type RateLimitMode = { kind: "documented" } | { kind: "off" } | { kind: "scaled"; factor: number };

export function parseRateLimitMode(text: string): RateLimitMode | null {
  if (text === "documented") return { kind: "documented" };
  if (text === "off") return { kind: "off" };
  const match = /^scaled:(\d+(?:\.\d+)?)$/.exec(text);
  if (!match) return null;
  const factor = Number(match[1]);
  return factor >= 1 && Number.isFinite(factor) ? { kind: "scaled", factor } : null;
}

export function formatRateLimitMode(mode: RateLimitMode): string {
  return mode.kind === "scaled" ? `scaled:${mode.factor}` : mode.kind;
}

/** Spec, Limits. */
export const LIMITS = {
  balanceReads: 1500,
  refundPerSubscription: 20,
  reportingAggregatePerGame: 60,
  reportingDetailPerGame: 600,
  reportingDetailPerSubscription: 120,
} as const;

export class RateLimiter {
  private hits = new Map<string, number[]>();
  /**
   * Calls counted against a limit since the start (or the last reset), and those answered 429 (fleet tests read
   * them).
   */
  counts = { calls: 0, limited: 0 };

  constructor(public mode: RateLimitMode) {}

  get windowMs(): number {
    return this.mode.kind === "scaled" ? MINUTE / this.mode.factor : MINUTE;
  }

  /**
   * Counts a call against `key` (sliding window of one minute, scaled) and throws a 429 when it is over `limit`.
   * Spec: "429 carries retry_after (seconds)" in the body, and the Retry-After header.
   */
  hit(key: string, limit: number, errorCode: string, message: string): void {
    if (this.mode.kind === "off") return;
    this.counts.calls += 1;
    const now = Date.now();
    const window = this.windowMs;
    let list = this.hits.get(key);
    if (!list) {
      list = [];
      this.hits.set(key, list);
    }
    while (list.length > 0 && (list[0] as number) <= now - window) list.shift();
    if (list.length >= limit) {
      this.counts.limited += 1;
      const waitMs = Math.max(1, (list[0] as number) + window - now);
      throw rateLimitError(errorCode, message, waitMs, this.mode.kind === "scaled");
    }
    list.push(now);
  }

  reset(): void {
    this.hits.clear();
    this.counts = { calls: 0, limited: 0 };
  }
}

/** retry_after is whole seconds in documented mode and exact (to the millisecond) when scaled. */
export function rateLimitError(errorCode: string, message: string, waitMs: number, fractional: boolean): ApiError {
  const seconds = fractional ? Math.ceil(waitMs) / 1000 : Math.max(1, Math.ceil(waitMs / 1000));
  return new ApiError(
    429,
    errorCode,
    message,
    { retry_after: seconds },
    { "Retry-After": String(Math.max(1, Math.ceil(seconds))) },
  );
}
