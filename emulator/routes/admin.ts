import { randomBytes } from "node:crypto";
import { Hono } from "hono";
import { z } from "zod";
import { money } from "@/lib/money";
import { ApiError } from "../errors";
import { readJsonObject } from "../http/middleware";
import { faultView } from "../http/faults";
import { formatRateLimitMode, parseRateLimitMode } from "../http/rate-limits";
import { applyRefund, checkRefundable, resolveRefundPeriod } from "../ledger/refunds";
import { advanceClock } from "../ledger/renewals";
import type { Ledger } from "../ledger/ledger";
import type { AppEnv, EmulatorRuntime } from "../runtime";
import { generateDemoScenario } from "../scenario/demo";
import { addDisputeRoutes } from "./admin-disputes";
import { loadScenario, ROTATION_GRACE, ScenarioError } from "../scenario/load";
import { formatInstant, parseDuration, parseInstant } from "../time";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

const usdText = z.string().regex(/^\d{1,9}(\.\d{1,2})?$/);

const faultSchema = z.object({
  route: z.string().min(1),
  method: z.string().nullable().optional(),
  fault: z.enum(["429", "500", "502", "503", "hang", "drop", "delay"]),
  count: z.number().int().positive().optional(),
  retry_after: z.number().positive().optional(),
  error_code: z.string().nullable().optional(),
  error_code_public: z.string().nullable().optional(),
  hang_ms: z.number().int().positive().optional(),
});

const refundSchema = z.object({
  subscription_id: z.string().min(1),
  period_seq: z.number().int().positive().optional(),
  amount_usd: usdText.optional(),
  refunded_at: z.string().optional(),
  client_request_id: z.string().min(1).max(255).optional(),
  reason: z.string().max(500).optional(),
  receipt: z.boolean().default(true),
  emit_events: z.boolean().default(true),
});

const periodPatchSchema = z.object({
  base_usd: usdText.optional(),
  attributed_amount_usd: usdText.optional(),
  percent_at_renewal: usdText.optional(),
  invo_fee_usd: usdText.optional(),
  partner_revenue_settled_usd: usdText.optional(),
  pass_through_fees_usd: usdText.optional(),
  chargeback_fees_usd: usdText.optional(),
  disputed_amount_held_usd: usdText.optional(),
});

/** Counts of the loaded subscriptions by the cases the dashboard distinguishes. */
function breakdown(ledger: Ledger): Record<string, unknown> {
  const byStatus: Record<string, number> = {};
  let pcstore = 0;
  let walletOnly = 0;
  let pendingPrice = 0;
  let cancelAtPeriodEnd = 0;
  for (const sub of ledger.subscriptions.values()) {
    byStatus[sub.status] = (byStatus[sub.status] ?? 0) + 1;
    if (sub.fundingRail === "pcstore") pcstore++;
    if (sub.walletOnly) walletOnly++;
    if (sub.pendingAmountUsd) pendingPrice++;
    if (sub.cancelAtPeriodEnd) cancelAtPeriodEnd++;
  }
  return {
    subscriptions_by_status: byStatus,
    pcstore_subscriptions: pcstore,
    wallet_only_subscriptions: walletOnly,
    staged_price_changes: pendingPrice,
    cancel_at_period_end: cancelAtPeriodEnd,
  };
}

function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError(400, "ADMIN_INVALID", `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

function instantOrThrow(text: string, name: string): number {
  const at = parseInstant(text);
  if (at === null) throw new ApiError(400, "ADMIN_INVALID", `${name} is not an ISO 8601 timestamp.`);
  return at;
}

/**
 * The admin API under /__emulator/, for tests and demos. Refuses callers that are not on the loopback interface.
 * Every route answers JSON; errors use the service's envelope with error_code ADMIN_*.
 */
export function adminRoutes(runtime: EmulatorRuntime): Hono<AppEnv> {
  const admin = new Hono<AppEnv>();

  admin.use("*", async (c, next) => {
    const address = c.env.incoming.socket.remoteAddress ?? "";
    if (!LOOPBACK.has(address))
      throw new ApiError(403, "ADMIN_LOOPBACK_ONLY", "The admin API answers loopback callers only.");
    return next();
  });

  const game = (id: string) => {
    const found = runtime.ledger.games.get(id);
    if (!found) throw new ApiError(404, "ADMIN_NOT_FOUND", `No game ${id}.`);
    return found;
  };

  // GET /__emulator/health – liveness and the emulator clock
  admin.get("/health", (c) => c.json({ status: "ok", clock: formatInstant(runtime.ledger.now) }));

  // GET /__emulator/state – summary of what is loaded
  admin.get("/state", (c) => {
    const ledger = runtime.ledger;
    return c.json({
      clock: formatInstant(ledger.now),
      paused: ledger.paused,
      rate_limits: formatRateLimitMode(runtime.limiter.mode),
      rate_limit_counts: { ...runtime.limiter.counts },
      games: [...ledger.games.values()].map((g) => ({
        game_id: g.gameId,
        name: g.name,
        status: g.status,
        environment: g.environment,
        fee_percent: g.feePercent.toFixed(2),
        webhooks: g.webhooks.map((w) => ({
          webhook_id: w.webhookId,
          url: w.url,
          events: w.events,
          secret_version: w.secrets[0]?.version ?? 0,
        })),
      })),
      breakdown: breakdown(ledger),
      counts: {
        players: ledger.players.size,
        cards: ledger.cards.size,
        subscriptions: ledger.subscriptions.size,
        periods: ledger.periods.size,
        receipts: ledger.receipts.size,
        deliveries: runtime.dispatcher.deliveries.length,
      },
    });
  });

  // POST /__emulator/scenario – replace the state with a scenario (body: the scenario JSON)
  admin.post("/scenario", async (c) => {
    const body = await readJsonObject(c, "ADMIN_INVALID");
    try {
      runtime.replace(loadScenario(body, { extraWebhooks: runtime.options.extraWebhooks }));
    } catch (error) {
      if (error instanceof ScenarioError) throw new ApiError(400, "SCENARIO_INVALID", error.message);
      throw error;
    }
    return c.json({
      status: "loaded",
      clock: formatInstant(runtime.ledger.now),
      subscriptions: runtime.ledger.subscriptions.size,
    });
  });

  // POST /__emulator/demo – replace the state with the demo data {seed?, clock?}
  admin.post("/demo", async (c) => {
    const body = parseBody(
      z.object({ seed: z.number().int().optional(), clock: z.string().optional() }),
      await readJsonObject(c, "ADMIN_INVALID"),
    );
    const scenario = generateDemoScenario({ seed: body.seed ?? 1, clock: body.clock });
    runtime.replace(loadScenario(scenario, { extraWebhooks: runtime.options.extraWebhooks }));
    return c.json({
      status: "loaded",
      clock: formatInstant(runtime.ledger.now),
      subscriptions: runtime.ledger.subscriptions.size,
    });
  });

  // POST /__emulator/reset – back to the startup state ({empty: true} for an empty ledger)
  admin.post("/reset", async (c) => {
    const body = await readJsonObject(c, "ADMIN_INVALID");
    runtime.reset(body.empty === true);
    return c.json({ status: "reset", clock: formatInstant(runtime.ledger.now) });
  });

  // GET /__emulator/clock – the emulator clock
  admin.get("/clock", (c) => c.json({ now: formatInstant(runtime.ledger.now) }));

  // POST /__emulator/clock/advance – {by: "1d" | seconds} or {to: ISO}; renewals, retries and retirements run
  admin.post("/clock/advance", async (c) => {
    const body = await readJsonObject(c, "ADMIN_INVALID");
    const ledger = runtime.ledger;
    let target: number;
    if (body.to !== undefined) target = instantOrThrow(String(body.to), "to");
    else {
      const by = parseDuration(body.by ?? body.seconds);
      if (by === null)
        throw new ApiError(400, "ADMIN_INVALID", "Send {by: '30d'} (or seconds) or {to: ISO timestamp}.");
      target = ledger.now + by;
    }
    if (target < ledger.now) throw new ApiError(400, "ADMIN_CLOCK_BACKWARDS", "The clock only moves forward.");
    const result = advanceClock(ledger, target);
    return c.json({
      ...result,
      from: formatInstant(result.from),
      to: formatInstant(result.to),
      now: formatInstant(ledger.now),
    });
  });

  // POST /__emulator/clock/set – {at: ISO}; forward runs what falls due, backward is refused
  admin.post("/clock/set", async (c) => {
    const body = await readJsonObject(c, "ADMIN_INVALID");
    const target = instantOrThrow(String(body.at ?? ""), "at");
    const ledger = runtime.ledger;
    if (target < ledger.now)
      throw new ApiError(
        400,
        "ADMIN_CLOCK_BACKWARDS",
        "The clock only moves forward; reset or load a scenario instead.",
      );
    const result = advanceClock(ledger, target);
    return c.json({
      ...result,
      from: formatInstant(result.from),
      to: formatInstant(result.to),
      now: formatInstant(ledger.now),
    });
  });

  // POST /__emulator/faults – arm a fault; GET lists; DELETE clears all or one
  admin.post("/faults", async (c) => {
    const body = parseBody(faultSchema, await readJsonObject(c, "ADMIN_INVALID"));
    return c.json(faultView(runtime.faults.add(body)), 201);
  });
  admin.get("/faults", (c) => c.json({ faults: runtime.faults.list().map(faultView) }));
  admin.delete("/faults", (c) => {
    runtime.faults.clear();
    return c.json({ status: "cleared" });
  });
  admin.delete("/faults/:id", (c) => {
    if (!runtime.faults.remove(c.req.param("id"))) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such fault.");
    return c.json({ status: "removed" });
  });

  // GET /__emulator/webhooks/deliveries – every delivery with its tries (filters: event_type, status, game_id)
  admin.get("/webhooks/deliveries", (c) => {
    const type = c.req.query("event_type");
    const status = c.req.query("status");
    const gameId = c.req.query("game_id");
    const deliveries = runtime.dispatcher.deliveries.filter(
      (d) => (!type || d.event_type === type) && (!status || d.status === status) && (!gameId || d.game_id === gameId),
    );
    return c.json({ deliveries: deliveries.map((d) => ({ ...d, body: JSON.parse(d.body) as unknown })) });
  });

  // POST /__emulator/webhooks/retry-now – send every waiting retry at once
  admin.post("/webhooks/retry-now", (c) => c.json({ retried: runtime.dispatcher.retryNow() }));

  // POST /__emulator/webhooks/deliveries/{id}/replay – send a delivery again (new event id header, same idempotency key)
  admin.post("/webhooks/deliveries/:id/replay", (c) => {
    const delivery = runtime.dispatcher.replay(c.req.param("id"));
    if (!delivery) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such delivery.");
    return c.json({ status: "replaying", delivery_id: delivery.delivery_id });
  });

  // POST /__emulator/webhooks – register an endpoint {game_id, url, secret?, events?}
  admin.post("/webhooks", async (c) => {
    const body = parseBody(
      z.object({
        game_id: z.string(),
        url: z.string().url(),
        secret: z.string().min(1).optional(),
        events: z.array(z.string()).min(1).default(["*"]),
      }),
      await readJsonObject(c, "ADMIN_INVALID"),
    );
    const g = game(body.game_id);
    const secret = body.secret ?? `whsec_${randomBytes(16).toString("hex")}`;
    const webhookId = `wh_${g.gameId}_${g.webhooks.length + 1}_${randomBytes(3).toString("hex")}`;
    g.webhooks.push({
      webhookId,
      url: body.url,
      events: body.events,
      secrets: [{ version: 1, secret, validUntil: null }],
    });
    return c.json({ webhook_id: webhookId, secret, events: body.events }, 201);
  });

  // POST /__emulator/games/{game_id}/rotate-secret – new game secret; the old one stays valid 7 days (emulator clock)
  admin.post("/games/:gameId/rotate-secret", async (c) => {
    const body = await readJsonObject(c, "ADMIN_INVALID");
    const g = game(c.req.param("gameId"));
    const next = typeof body.secret === "string" && body.secret ? body.secret : `gs_${randomBytes(16).toString("hex")}`;
    g.previousSecret = g.secret;
    g.previousSecretValidUntil = runtime.ledger.now + ROTATION_GRACE;
    g.secret = next;
    return c.json({ secret: next, previous_secret_valid_until: formatInstant(g.previousSecretValidUntil) });
  });

  // POST /__emulator/games/{game_id}/webhooks/{webhook_id}/rotate-secret – new signing secret, 7-day grace for the old
  admin.post("/games/:gameId/webhooks/:webhookId/rotate-secret", async (c) => {
    const body = await readJsonObject(c, "ADMIN_INVALID");
    const g = game(c.req.param("gameId"));
    const endpoint = g.webhooks.find((w) => w.webhookId === c.req.param("webhookId"));
    if (!endpoint) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such webhook.");
    const current = endpoint.secrets[0];
    const secret =
      typeof body.secret === "string" && body.secret ? body.secret : `whsec_${randomBytes(16).toString("hex")}`;
    const until = runtime.ledger.now + ROTATION_GRACE;
    endpoint.secrets = [
      { version: (current?.version ?? 0) + 1, secret, validUntil: null },
      ...endpoint.secrets.map((s) => ({ ...s, validUntil: s.validUntil ?? until })),
    ];
    return c.json({
      secret,
      secret_version: `v${(current?.version ?? 0) + 1}`,
      previous_valid_until: formatInstant(until),
    });
  });

  // PATCH /__emulator/games/{game_id} – {status?, fee_percent?}
  admin.patch("/games/:gameId", async (c) => {
    const body = parseBody(
      z.object({ status: z.string().min(1).optional(), fee_percent: usdText.optional() }),
      await readJsonObject(c, "ADMIN_INVALID"),
    );
    const g = game(c.req.param("gameId"));
    if (body.status) g.status = body.status;
    if (body.fee_percent) g.feePercent = money(body.fee_percent);
    return c.json({ game_id: g.gameId, status: g.status, fee_percent: g.feePercent.toFixed(2) });
  });

  // POST /__emulator/pause – {paused: boolean}: the maintenance pause (amount/payment-method 503, refunds FLOW_PAUSED)
  admin.post("/pause", async (c) => {
    const body = parseBody(z.object({ paused: z.boolean() }), await readJsonObject(c, "ADMIN_INVALID"));
    runtime.ledger.paused = body.paused;
    return c.json({ paused: body.paused });
  });

  // POST /__emulator/rate-limits – {mode: "documented" | "off" | "scaled:K"}
  admin.post("/rate-limits", async (c) => {
    const body = await readJsonObject(c, "ADMIN_INVALID");
    const mode = parseRateLimitMode(String(body.mode ?? ""));
    if (!mode) throw new ApiError(400, "ADMIN_INVALID", "mode must be documented, off or scaled:K.");
    runtime.limiter.mode = mode;
    runtime.limiter.reset();
    return c.json({ mode: formatRateLimitMode(mode) });
  });

  // PATCH /__emulator/periods/{period_id} – overwrite recorded figures to simulate drift
  admin.patch("/periods/:periodId", async (c) => {
    const body = parseBody(periodPatchSchema, await readJsonObject(c, "ADMIN_INVALID"));
    const period = runtime.ledger.periods.get(Number(c.req.param("periodId")));
    if (!period || period.paidAt === null)
      throw new ApiError(404, "ADMIN_NOT_FOUND", "No settled period with this id.");
    if (body.invo_fee_usd) period.invoFeeUsd = money(body.invo_fee_usd);
    if (body.partner_revenue_settled_usd) period.partnerRevenueSettledUsd = money(body.partner_revenue_settled_usd);
    if (body.pass_through_fees_usd) period.passThroughFeesUsd = money(body.pass_through_fees_usd);
    if (body.chargeback_fees_usd) period.chargebackFeesUsd = money(body.chargeback_fees_usd);
    if (body.disputed_amount_held_usd) period.disputedAmountHeldUsd = money(body.disputed_amount_held_usd);
    if (period.attribution) {
      if (body.percent_at_renewal) period.attribution.percentAtRenewal = money(body.percent_at_renewal);
      if (body.base_usd) period.attribution.baseUsd = money(body.base_usd);
      // Spec: "attributed_amount_usd stays the recorded snapshot even if base_matches_settled_fee is false".
      if (body.attributed_amount_usd) period.attribution.attributedUsd = money(body.attributed_amount_usd);
    }
    return c.json({ status: "patched", period_id: period.periodId });
  });

  // POST /__emulator/refunds – record a refund at a given time (receipt or period row only)
  admin.post("/refunds", async (c) => {
    const body = parseBody(refundSchema, await readJsonObject(c, "ADMIN_INVALID"));
    const ledger = runtime.ledger;
    const sub = ledger.subscriptions.get(body.subscription_id);
    if (!sub) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such subscription.");
    const period = resolveRefundPeriod(sub, body.period_seq ?? null);
    checkRefundable(period);
    const at = body.refunded_at ? instantOrThrow(body.refunded_at, "refunded_at") : ledger.now;
    const latest = period.refunds[period.refunds.length - 1];
    if (at > ledger.now || (period.paidAt !== null && at < period.paidAt) || (latest && at < latest.refundedAt)) {
      throw new ApiError(400, "ADMIN_INVALID", "refunded_at must lie between the period's last event and the clock.");
    }
    const amount = body.amount_usd ? money(body.amount_usd) : null;
    if (amount && (amount.lte(0) || amount.gt(period.amountUsd.minus(period.refundedTotalUsd)))) {
      throw new ApiError(400, "ADMIN_INVALID", "amount_usd exceeds the remaining refundable amount.");
    }
    if (
      body.client_request_id &&
      ledger.receipts.has(ledger.receiptKey(sub.gameId, sub.subscriptionId, body.client_request_id))
    ) {
      throw new ApiError(409, "ADMIN_CONFLICT", "client_request_id already used on this subscription.");
    }
    const outcome = applyRefund(ledger, period, {
      at,
      amountUsd: amount,
      clientRequestId: body.client_request_id ?? null,
      reason: body.reason ?? null,
      receipt: body.receipt,
      live: body.emit_events,
    });
    return c.json(
      {
        status: "recorded",
        period_id: period.periodId,
        transaction_id: outcome.event.transactionId,
        receipt: outcome.receipt,
      },
      201,
    );
  });

  // POST /__emulator/receipts/lose – {subscription_id, client_request_id}: a replay then gets the reduced body
  admin.post("/receipts/lose", async (c) => {
    const body = parseBody(
      z.object({ subscription_id: z.string(), client_request_id: z.string() }),
      await readJsonObject(c, "ADMIN_INVALID"),
    );
    const ledger = runtime.ledger;
    const sub = ledger.subscriptions.get(body.subscription_id);
    const stored = sub
      ? ledger.receipts.get(ledger.receiptKey(sub.gameId, sub.subscriptionId, body.client_request_id))
      : undefined;
    if (!stored) throw new ApiError(404, "ADMIN_NOT_FOUND", "No receipt for this key.");
    stored.lost = true;
    return c.json({ status: "lost" });
  });

  // POST /__emulator/subscriptions/{id}/charge-outcomes – {outcomes: ["decline", ...]} for the next charge attempts
  admin.post("/subscriptions/:id/charge-outcomes", async (c) => {
    const body = parseBody(
      z.object({ outcomes: z.array(z.enum(["decline"])).min(1) }),
      await readJsonObject(c, "ADMIN_INVALID"),
    );
    const sub = runtime.ledger.subscriptions.get(c.req.param("id"));
    if (!sub) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such subscription.");
    sub.forcedOutcomes.push(...body.outcomes);
    return c.json({ queued: sub.forcedOutcomes.length });
  });

  // POST /__emulator/players/balance – {game_id, player_id, balance_coins}
  admin.post("/players/balance", async (c) => {
    const body = parseBody(
      z.object({
        game_id: z.string(),
        player_id: z.number().int(),
        balance_coins: z.string().regex(/^-?\d{1,15}(\.\d{1,2})?$/),
      }),
      await readJsonObject(c, "ADMIN_INVALID"),
    );
    const player = runtime.ledger.player(body.game_id, body.player_id);
    if (!player) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such player.");
    player.balanceCoins = money(body.balance_coins);
    player.balanceUpdatedAt = runtime.ledger.now;
    return c.json({ balance_coins: player.balanceCoins.toFixed(2) });
  });

  // POST /__emulator/cards/{card_id}/remove – the card disappears (PAYMENT_METHOD_UNAVAILABLE when attached)
  admin.post("/cards/:cardId/remove", (c) => {
    const card = runtime.ledger.cards.get(Number(c.req.param("cardId")));
    if (!card) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such card.");
    card.removed = true;
    return c.json({ status: "removed" });
  });

  addDisputeRoutes(admin, runtime);
  return admin;
}
