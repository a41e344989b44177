import type { Hono } from "hono";
import { money } from "@/lib/money";
import { ApiError } from "../errors";
import { queryBoolean, queryInteger, readJsonObject } from "../http/middleware";
import { cancelSubscription, changeAmount, changePaymentMethod } from "../ledger/subscriptions";
import type { SubscriptionState } from "../ledger/types";
import { LIVE_STATUSES, playerView, subscriptionView } from "../ledger/views";
import type { AppContext, AppEnv, EmulatorRuntime } from "../runtime";
import { SUBSCRIPTION_ID_PATTERN } from "@/lib/lookup/schemas";

export const SUBSCRIPTION_STATUSES = [...LIVE_STATUSES, "canceled", "expired"] as const;
/** Spec, Limits: "Subscription list | limit 1 to 100 (default 50), offset 0 to 100000". */
export const LIST_MAX_LIMIT = 100;
export const MAX_OFFSET = 100_000;
export const MAX_EMAIL_LENGTH = 254;
/** Spec, Limits: "Cancel and refund reason | at most 500 characters". */
export const MAX_REASON_LENGTH = 500;

/**
 * The subscription of this game named in the path; spec: "404 SUBSCRIPTION_NOT_FOUND | Not this game's subscription".
 */
export function pathSubscription(runtime: EmulatorRuntime, c: AppContext): SubscriptionState {
  const id = c.req.param("id") ?? "";
  if (!SUBSCRIPTION_ID_PATTERN.test(id))
    throw new ApiError(400, "INVALID_FIELD_VALUE", "subscription_id is malformed.");
  const sub = runtime.ledger.subscription(c.get("game").gameId, id);
  if (!sub) throw new ApiError(404, "SUBSCRIPTION_NOT_FOUND", "No such subscription for this game.");
  return sub;
}

/** Parses `status=live,canceled`; spec: "the word live expands to the four live statuses and may be mixed". */
export function parseStatusList(
  value: string | undefined,
  allowed: readonly string[],
  allowLive: boolean,
): Set<string> | null {
  if (value === undefined || value.trim() === "") return null;
  const out = new Set<string>();
  for (const raw of value.split(",")) {
    const word = raw.trim().toLowerCase();
    if (word === "") continue;
    if (allowLive && word === "live") for (const status of LIVE_STATUSES) out.add(status);
    else if (allowed.includes(word)) out.add(word);
    else throw new ApiError(400, "STATUS_INVALID", `Unknown status ${JSON.stringify(raw.trim())}.`);
  }
  return out.size > 0 ? out : null;
}

export function registerSubscriptionRoutes(api: Hono<AppEnv>, runtime: EmulatorRuntime): void {
  // GET /api/subscriptions/player – a player's subscriptions, newest first
  api.get("/api/subscriptions/player", (c) => {
    const email = c.req.query("player_email");
    if (email === undefined || email.trim() === "")
      throw new ApiError(400, "PLAYER_EMAIL_REQUIRED", "player_email is required.");
    if (email.length > MAX_EMAIL_LENGTH)
      throw new ApiError(400, "PLAYER_EMAIL_TOO_LONG", `player_email is longer than ${MAX_EMAIL_LENGTH} characters.`);
    const statuses = parseStatusList(c.req.query("status"), SUBSCRIPTION_STATUSES, true);
    const includePlayer = queryBoolean(c.req.query("include_player"), "include_player");
    const limit = queryInteger(c.req.query("limit"), "PAGINATION_INVALID", "limit", 1, LIST_MAX_LIMIT) ?? 50;
    const offset = queryInteger(c.req.query("offset"), "PAGINATION_INVALID", "offset", 0, MAX_OFFSET) ?? 0;
    const ledger = runtime.ledger;
    const game = c.get("game");
    const player = ledger.playerByEmail(game.gameId, email.trim());
    // Spec: "A player who does not exist returns an empty list and total_count 0."
    const all = player ? ledger.subscriptionsOf(game.gameId, player.playerId) : [];
    const matching = all
      .filter((sub) => statuses === null || statuses.has(sub.status))
      // Spec: "Ordered newest first with a stable tiebreaker" (subscription_id, descending).
      .sort((a, b) => b.createdAt - a.createdAt || (a.subscriptionId < b.subscriptionId ? 1 : -1));
    const page = matching.slice(offset, offset + limit);
    return c.json({
      status: "success",
      player_email: email.trim(),
      ...(includePlayer ? { player: player ? playerView(player) : null } : {}),
      subscriptions: page.map((sub) => subscriptionView(ledger, sub)),
      pagination: { total_count: matching.length, limit, offset, has_more: offset + page.length < matching.length },
    });
  });

  // GET /api/subscriptions/{subscription_id} – one subscription, optionally with its player
  api.get("/api/subscriptions/:id", (c) => {
    const includePlayer = queryBoolean(c.req.query("include_player"), "include_player");
    const sub = pathSubscription(runtime, c);
    const ledger = runtime.ledger;
    const player = ledger.player(sub.gameId, sub.playerId);
    return c.json({
      status: "success",
      subscription: subscriptionView(ledger, sub),
      ...(includePlayer ? { player: player ? playerView(player) : null } : {}),
    });
  });

  // POST /api/subscriptions/{subscription_id}/cancel – at period end (default) or now
  api.post("/api/subscriptions/:id/cancel", async (c) => {
    const sub = pathSubscription(runtime, c);
    const body = await readJsonObject(c, "INVALID_FIELD_VALUE");
    // Spec: "at_period_end (boolean, default true; an empty string means default)".
    const raw = body.at_period_end;
    if (raw !== undefined && raw !== null && raw !== "" && typeof raw !== "boolean") {
      throw new ApiError(400, "INVALID_FIELD_VALUE", "at_period_end must be a boolean.");
    }
    const reason = parseReason(body.reason);
    return c.json(
      cancelSubscription(runtime.ledger, sub, { atPeriodEnd: typeof raw === "boolean" ? raw : true, reason }),
    );
  });

  // POST /api/subscriptions/{subscription_id}/amount – stage a price change
  api.post("/api/subscriptions/:id/amount", async (c) => {
    const sub = pathSubscription(runtime, c);
    const body = await readJsonObject(c, "INVALID_FIELD_VALUE");
    const amount = body.amount_usd;
    if (typeof amount !== "string" || !/^\d{1,7}(\.\d{1,2})?$/.test(amount.trim()) || money(amount.trim()).lte(0)) {
      throw new ApiError(400, "INVALID_FIELD_VALUE", "amount_usd must be a USD amount greater than 0, such as 12.50.");
    }
    return c.json(changeAmount(runtime.ledger, sub, money(amount.trim())));
  });

  // POST /api/subscriptions/{subscription_id}/payment-method – change the card or go wallet-only
  api.post("/api/subscriptions/:id/payment-method", async (c) => {
    const sub = pathSubscription(runtime, c);
    const body = await readJsonObject(c, "INVALID_FIELD_VALUE");
    const rawCard = body.player_card_id ?? body.card_id;
    let cardId: number | null = null;
    if (rawCard !== undefined && rawCard !== null) {
      if (typeof rawCard !== "number" || !Number.isSafeInteger(rawCard) || rawCard < 1) {
        throw new ApiError(400, "PAYMENT_METHOD_INVALID", "player_card_id must be a positive integer.");
      }
      cardId = rawCard;
    }
    const walletOnly = body.wallet_only;
    if (walletOnly !== undefined && walletOnly !== null && typeof walletOnly !== "boolean") {
      throw new ApiError(400, "INVALID_FIELD_VALUE", "wallet_only must be a boolean.");
    }
    return c.json(
      changePaymentMethod(runtime.ledger, sub, {
        cardId,
        walletOnly: typeof walletOnly === "boolean" ? walletOnly : null,
      }),
    );
  });
}

export function parseReason(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw new ApiError(400, "INVALID_FIELD_VALUE", "reason must be a string.");
  if ([...value].length > MAX_REASON_LENGTH) {
    throw new ApiError(400, "INVALID_FIELD_VALUE", `reason is longer than ${MAX_REASON_LENGTH} characters.`);
  }
  return value;
}
