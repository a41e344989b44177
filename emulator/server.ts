import http from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { ApiError, errorBody } from "./errors";
import { authMiddleware, faultMiddleware, renderError } from "./http/middleware";
import { parseRateLimitMode, type RateLimitMode } from "./http/rate-limits";
import { Ledger } from "./ledger/ledger";
import { readStateFile } from "./ledger/persist";
import { beginChange, endChange } from "./ledger/revision";
import { adminRoutes } from "./routes/admin";
import { registerPlayerRoutes } from "./routes/players";
import { registerRefundRoute } from "./routes/refund";
import { registerReportingRoutes } from "./routes/reporting";
import { registerSubscriptionRoutes } from "./routes/subscriptions";
import { EmulatorRuntime, type AppContext, type AppEnv } from "./runtime";
import { DEMO_WEBHOOK_SECRET, generateDemoScenario } from "./scenario/demo";
import { loadScenario, readScenarioFile, type ExtraWebhook } from "./scenario/load";
import { formatInstant } from "./time";

export type StartEmulatorOptions = {
  /** Port to listen on; 0 (the default) picks a free one, reported back in `port` and `url`. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** A scenario object (the JSON of a scenario file). */
  scenario?: unknown;
  /** A scenario file to read. */
  scenarioFile?: string;
  /** The deterministic demo data instead of a scenario. */
  demo?: boolean | { seed?: number; clock?: string };
  /** documented (default), off, or scaled:K (K times faster windows and webhook retries). */
  rateLimits?: RateLimitMode | string;
  /** Webhook endpoint(s) registered on every game, subscribed to all events. */
  webhookUrl?: string | string[];
  /** Signing secret of the endpoints of webhookUrl; default the demo's DEMO_WEBHOOK_SECRET. */
  webhookSecret?: string;
  /** Divides the retry schedule (30 s, 2 m, ...); default K of scaled:K, else 1. */
  webhookRetryScale?: number;
  /** Timeout of one delivery try; default 10 s. */
  webhookTimeoutMs?: number;
  /**
   * Keeps the state in this file: read at start when it exists (instead of the scenario or demo, which only build the
   * first state), saved after every change (debounced) and on close. An unreadable file is refused (StateFileError).
   */
  stateFile?: string;
  /** The emulator clock runs with the wall clock from its start (or its saved anchor); default: it stands still. */
  realTimeClock?: boolean;
  /** Delay between a change and its save; default 1 s. */
  saveDelayMs?: number;
};

export type RunningEmulator = {
  url: string;
  port: number;
  host: string;
  /** The live state (ledger, limiter, faults, deliveries); the ledger is replaced on load and reset. */
  runtime: EmulatorRuntime;
  ledger(): Ledger;
  close(): Promise<void>;
};

function resolveMode(value: StartEmulatorOptions["rateLimits"]): RateLimitMode {
  if (value === undefined) return { kind: "documented" };
  if (typeof value !== "string") return value;
  const mode = parseRateLimitMode(value);
  if (!mode) throw new Error(`rate limits must be documented, off or scaled:K, not ${JSON.stringify(value)}`);
  return mode;
}

function onError(runtime: EmulatorRuntime) {
  return (error: Error, c: AppContext): Response => {
    if (error instanceof ApiError) return renderError(c, runtime, error);
    console.error("[emulator] internal error:", error);
    const internal = new ApiError(500, "INTERNAL_ERROR", "An internal error occurred; retry with the same key.");
    return c.json(errorBody(internal, formatInstant(runtime.ledger.now)), 500);
  };
}

/** The HTTP app: every service route at / and under /sandbox, and the admin API under /__emulator/. */
export function createEmulatorApp(runtime: EmulatorRuntime): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // A real-time clock catches up before every call; anything but a read may change the state, which is then saved.
  // While such a call runs, and after it, views kept of the ledger are not used (ledger/revision.ts).
  app.use("*", async (c, next) => {
    runtime.tick();
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const ledger = runtime.ledger;
    beginChange(ledger);
    try {
      await next();
    } finally {
      endChange(ledger);
      runtime.changed();
    }
  });

  const api = new Hono<AppEnv>();
  api.use("*", faultMiddleware(runtime));
  api.use("*", authMiddleware(runtime));
  registerReportingRoutes(api, runtime);
  registerSubscriptionRoutes(api, runtime);
  registerRefundRoute(api, runtime);
  registerPlayerRoutes(api, runtime);
  api.onError(onError(runtime));

  const admin = adminRoutes(runtime);
  admin.onError(onError(runtime));

  app.route("/__emulator", admin);
  app.route("/sandbox", api);
  app.route("/", api);
  app.notFound((c) =>
    renderError(c, runtime, new ApiError(404, "NOT_FOUND", `No route ${c.req.method} ${c.req.path}.`)),
  );
  app.onError(onError(runtime));
  return app;
}

/** Builds the startup state described by the options (called again on reset). */
async function initialState(options: StartEmulatorOptions, extraWebhooks: ExtraWebhook[]): Promise<() => Ledger> {
  if (options.scenarioFile) {
    const input = await readScenarioFile(options.scenarioFile);
    return () => loadScenario(input, { extraWebhooks });
  }
  if (options.scenario !== undefined) {
    const input = options.scenario;
    return () => loadScenario(input, { extraWebhooks });
  }
  if (options.demo) {
    const demo = typeof options.demo === "object" ? options.demo : {};
    const scenario = generateDemoScenario({ seed: demo.seed ?? 1, clock: demo.clock });
    return () => loadScenario(scenario, { extraWebhooks });
  }
  const startedAt = Date.now();
  return () => new Ledger(startedAt);
}

/** A restored state keeps its endpoints; the ones asked for at this start are added where missing. */
function registerWebhooks(ledger: Ledger, extraWebhooks: ExtraWebhook[]): void {
  for (const game of ledger.games.values()) {
    for (const extra of extraWebhooks) {
      if (game.webhooks.some((w) => w.url === extra.url)) continue;
      game.webhooks.push({
        webhookId: `wh_${game.gameId}_${game.webhooks.length + 1}`,
        url: extra.url,
        events: extra.events,
        secrets: [{ version: 1, secret: extra.secret, validUntil: null }],
      });
    }
  }
}

/** Starts an emulator in this process. Tests start one per file on port 0. */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const mode = resolveMode(options.rateLimits);
  const urls =
    options.webhookUrl === undefined
      ? []
      : Array.isArray(options.webhookUrl)
        ? options.webhookUrl
        : [options.webhookUrl];
  const extraWebhooks = urls.map((url) => ({
    url,
    secret: options.webhookSecret ?? DEMO_WEBHOOK_SECRET,
    events: ["*"],
  }));
  const initial = await initialState(options, extraWebhooks);
  const restored = options.stateFile ? readStateFile(options.stateFile) : null;
  if (restored) registerWebhooks(restored.ledger, extraWebhooks);
  const runtime = new EmulatorRuntime({
    rateLimits: mode,
    webhookRetryScale: options.webhookRetryScale ?? (mode.kind === "scaled" ? mode.factor : 1),
    webhookTimeoutMs: options.webhookTimeoutMs ?? 10_000,
    extraWebhooks,
    initial,
    restored,
    realTimeClock: options.realTimeClock ?? false,
    stateFile: options.stateFile ?? null,
    saveDelayMs: options.saveDelayMs,
  });
  runtime.tick();
  runtime.save();
  // Renewals fall due while nobody calls: the clock catches up every half minute as well.
  const ticker = options.realTimeClock ? setInterval(() => runtime.tick(), 30_000) : null;
  ticker?.unref();
  const app = createEmulatorApp(runtime);
  const server = http.createServer(getRequestListener(app.fetch));
  // An idle connection is ended by its client, never by this server: a server that ends one after 5 s (Node's
  // default) races a client reusing it at that moment (a busy machine's late timers), whose request is then cut
  // (ECONNRESET). Clients end theirs sooner (fetch after 4 s); a stop ends every connection.
  server.keepAliveTimeout = 0;
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    host,
    runtime,
    ledger: () => runtime.ledger,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        if (ticker) clearInterval(ticker);
        runtime.save();
        runtime.dispatcher.close();
        for (const release of [...runtime.hangs]) release();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
