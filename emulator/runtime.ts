import type { Context } from "hono";
import type { HttpBindings } from "@hono/node-server";
import { FaultRegistry } from "./http/faults";
import { RateLimiter, type RateLimitMode } from "./http/rate-limits";
import { Ledger } from "./ledger/ledger";
import type { GameState } from "./ledger/types";
import type { ExtraWebhook } from "./scenario/load";
import { WebhookDispatcher } from "./webhooks/dispatcher";

export type AppEnv = { Bindings: HttpBindings; Variables: { game: GameState; sandbox: boolean } };
export type AppContext = Context<AppEnv>;

export type RuntimeOptions = {
  rateLimits: RateLimitMode;
  webhookRetryScale: number;
  webhookTimeoutMs: number;
  extraWebhooks: ExtraWebhook[];
  /** Builds the startup state again (reset). */
  initial: () => Ledger;
};

/** Everything a running emulator holds: the ledger (replaced on load and reset), limits, faults and deliveries. */
export class EmulatorRuntime {
  ledger: Ledger;
  readonly limiter: RateLimiter;
  readonly faults = new FaultRegistry();
  readonly dispatcher: WebhookDispatcher;
  /** Aborts hanging requests when the server closes. */
  readonly hangs = new Set<() => void>();

  constructor(readonly options: RuntimeOptions) {
    this.limiter = new RateLimiter(options.rateLimits);
    this.dispatcher = new WebhookDispatcher({
      retryScale: options.webhookRetryScale,
      timeoutMs: options.webhookTimeoutMs,
      ledger: () => this.ledger,
    });
    this.ledger = this.adopt(options.initial());
  }

  /** Makes `ledger` the live state: its events go to the webhook dispatcher, and the ids it makes from now on are new to the process. */
  adopt(ledger: Ledger): Ledger {
    ledger.goLive();
    ledger.onEvent = (event) => this.dispatcher.enqueue(event);
    this.ledger = ledger;
    return ledger;
  }

  /** Back to the startup state (or an empty one): deliveries, faults and rate-limit counters are cleared too. */
  reset(empty = false): void {
    this.dispatcher.clear();
    this.faults.clear();
    this.limiter.reset();
    this.adopt(empty ? new Ledger(this.ledger.now) : this.options.initial());
  }

  replace(ledger: Ledger): void {
    this.dispatcher.clear();
    this.faults.clear();
    this.limiter.reset();
    this.adopt(ledger);
  }
}
