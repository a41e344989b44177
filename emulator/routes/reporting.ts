import type { Hono } from "hono";
import { ApiError } from "../errors";
import { queryClampedInteger, queryInteger } from "../http/middleware";
import { LIMITS } from "../http/rate-limits";
import { MAX_WINDOW_DAYS } from "../ledger/report-aggregate";
import { periodDetail, subscriptionReport, windowReport } from "../ledger/reporting";
import type { AppEnv, EmulatorRuntime } from "../runtime";
import { SUBSCRIPTION_ID_PATTERN } from "@/lib/lookup/schemas";
import { DAY, parseWindowBound } from "../time";
import { parseStatusList } from "./subscriptions";

export const PERIOD_STATUSES = ["pending", "paid", "failed", "forgiven", "refunded"] as const;
const MAX_LIMIT = 100;
const MAX_OFFSET = 100_000;
/** Spec: a 429 "rate_limit_exceeded (retry_after in body and Retry-After header)". */
const RATE_CODE = "rate_limit_exceeded";

/**
 * The limit of both paginated reporting routes. Any integer is accepted and clamped into 1..100 (0 and negatives
 * read as 1); only a value that is not an integer is refused with PAGINATION_INVALID.
 */
function readLimit(value: string | undefined): number {
  // Spec: "Default 50, silently clamped to 100, minimum 1."
  return queryClampedInteger(value, "PAGINATION_INVALID", "limit", 1, MAX_LIMIT) ?? 50;
}

function readOffset(value: string | undefined): number {
  return queryInteger(value, "PAGINATION_INVALID", "offset", 0, MAX_OFFSET) ?? 0;
}

function readSubscriptionId(value: string): string {
  // Spec: "subscription_id | string | no | At most 50 characters."
  if (value.length > 50 || !SUBSCRIPTION_ID_PATTERN.test(value)) {
    throw new ApiError(400, "SUBSCRIPTION_ID_INVALID", "subscription_id is malformed or longer than 50 characters.");
  }
  return value;
}

export function registerReportingRoutes(api: Hono<AppEnv>, runtime: EmulatorRuntime): void {
  // GET /api/subscriptions/reporting/attribution – totals and recipients of a settlement window
  api.get("/api/subscriptions/reporting/attribution", (c) => {
    const game = c.get("game");
    runtime.limiter.hit(
      `report:${game.gameId}`,
      LIMITS.reportingAggregatePerGame,
      RATE_CODE,
      "More than 60 aggregate reports per minute for this game.",
    );
    const startText = c.req.query("start");
    const endText = c.req.query("end");
    if (!startText || !endText) throw new ApiError(400, "WINDOW_INVALID", "start and end are required.");
    const start = parseWindowBound(startText);
    const end = parseWindowBound(endText);
    if (start === null) throw new ApiError(400, "WINDOW_INVALID", "start is not an ISO 8601 date or datetime.");
    if (end === null) throw new ApiError(400, "WINDOW_INVALID", "end is not an ISO 8601 date or datetime.");
    if (end <= start) throw new ApiError(400, "WINDOW_INVALID", "end must be after start.");
    // Spec: "end ... at most 400 days after start".
    if (end - start > MAX_WINDOW_DAYS * DAY)
      throw new ApiError(400, "WINDOW_TOO_LONG", `The window is longer than ${MAX_WINDOW_DAYS} days.`);
    const recipientText = c.req.query("recipient_player_id");
    let recipient: number | null = null;
    if (recipientText !== undefined) {
      if (
        !/^\d{1,15}$/.test(recipientText) ||
        Number(recipientText) < 1 ||
        !Number.isSafeInteger(Number(recipientText))
      ) {
        throw new ApiError(400, "RECIPIENT_INVALID", "recipient_player_id must be a positive integer.");
      }
      recipient = Number(recipientText);
    }
    const subscriptionText = c.req.query("subscription_id");
    const subscriptionId = subscriptionText === undefined ? null : readSubscriptionId(subscriptionText);
    const limit = readLimit(c.req.query("limit"));
    const offset = readOffset(c.req.query("offset"));
    return c.json(
      windowReport(runtime.ledger, game, { start, end, recipientPlayerId: recipient, subscriptionId, limit, offset }),
    );
  });

  // GET /api/subscriptions/reporting/subscriptions/{subscription_id}/attribution – a subscription's cycles
  api.get("/api/subscriptions/reporting/subscriptions/:id/attribution", (c) => {
    const game = c.get("game");
    const id = readSubscriptionId(c.req.param("id"));
    runtime.limiter.hit(
      `detail:${game.gameId}`,
      LIMITS.reportingDetailPerGame,
      RATE_CODE,
      "More than 600 detail reports per minute for this game.",
    );
    runtime.limiter.hit(
      `detail:${game.gameId}:${id}`,
      LIMITS.reportingDetailPerSubscription,
      RATE_CODE,
      "More than 120 detail reports per minute for this subscription.",
    );
    const statuses = parseStatusList(c.req.query("status"), PERIOD_STATUSES, false);
    const limit = readLimit(c.req.query("limit"));
    const offset = readOffset(c.req.query("offset"));
    const sub = runtime.ledger.subscription(game.gameId, id);
    if (!sub) throw new ApiError(404, "SUBSCRIPTION_NOT_FOUND", "No such subscription for this game.");
    return c.json(subscriptionReport(runtime.ledger, sub, { statuses, limit, offset }));
  });

  // GET /api/subscriptions/reporting/periods/{period_id} – one renewal line with fee legs, refunds and charge
  api.get("/api/subscriptions/reporting/periods/:periodId", (c) => {
    const game = c.get("game");
    const text = c.req.param("periodId");
    if (!/^\d{1,15}$/.test(text) || Number(text) < 1)
      throw new ApiError(400, "INVALID_FIELD_VALUE", "period_id must be a positive integer.");
    runtime.limiter.hit(
      `detail:${game.gameId}`,
      LIMITS.reportingDetailPerGame,
      RATE_CODE,
      "More than 600 detail reports per minute for this game.",
    );
    const period = runtime.ledger.period(game.gameId, Number(text));
    if (!period) throw new ApiError(404, "PERIOD_NOT_FOUND", "No such period for this game.");
    runtime.limiter.hit(
      `detail:${game.gameId}:${period.sub.subscriptionId}`,
      LIMITS.reportingDetailPerSubscription,
      RATE_CODE,
      "More than 120 detail reports per minute for this subscription.",
    );
    return c.json(periodDetail(runtime.ledger, period));
  });
}
