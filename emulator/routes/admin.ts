import { randomBytes } from "node:crypto";
import { Hono } from "hono";
import { z } from "zod";
import { money } from "@/lib/money";
import { ApiError } from "../errors";
import { readJsonObject } from "../http/middleware";
import { faultView } from "../http/faults";
import { formatRateLimitMode, parseRateLimitMode } from "../http/rate-limits";
import { advanceClock } from "../ledger/renewals";
import type { Ledger } from "../ledger/ledger";
import type { AppEnv, EmulatorRuntime } from "../runtime";
import { generateDemoScenario } from "../scenario/demo";
import { addDisputeRoutes } from "./admin-disputes";
import { addLedgerRoutes } from "./admin-ledger";
import { instantOrThrow, parseBody } from "./admin-parse";
import { loadScenario, ROTATION_GRACE, ScenarioError } from "../scenario/load";
import { formatInstant, parseDuration } from "../time";

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
    // A web page the person has open is on the loopback too: a browser names the page's origin (and a request with
    // no preflight, such as a text/plain POST, would otherwise reach the admin API). Programs send no Origin.
    if (c.req.header("origin") !== undefined || c.req.header("sec-fetch-site") !== undefined)
      throw new ApiError(403, "ADMIN_NOT_FROM_A_PAGE", "The admin API answers programs, not web pages.");
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

  // POST /__emulator/webhooks/deliveries/{id}/replay – send a delivery again (new event id header, same idempotency
  // key)
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

  addLedgerRoutes(admin, runtime);
  addDisputeRoutes(admin, runtime);
  return admin;
}
