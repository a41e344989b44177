import type { Context } from "hono";
import type { HttpBindings } from "@hono/node-server";
import { FaultRegistry } from "./http/faults";
import { RateLimiter, type RateLimitMode } from "./http/rate-limits";
import { Ledger } from "./ledger/ledger";
import { type ClockAnchor, writeStateFile } from "./ledger/persist";
import { advanceClock } from "./ledger/renewals";
import { ledgerChanged } from "./ledger/revision";
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
  /** A state read back from a file: used instead of `initial()` at startup, with its clock anchor. */
  restored?: { ledger: Ledger; anchor: ClockAnchor } | null;
  /**
   * The emulator clock follows the wall clock from its anchor (renewals run as time passes) instead of standing still.
   */
  realTimeClock?: boolean;
  /** Where the state is saved (after changes, debounced, and on close); none keeps it in memory only. */
  stateFile?: string | null;
  /** Delay between a change and its save; default 1 s. */
  saveDelayMs?: number;
};

/** Everything a running emulator holds: the ledger (replaced on load and reset), limits, faults and deliveries. */
export class EmulatorRuntime {
  ledger: Ledger;
  readonly limiter: RateLimiter;
  readonly faults = new FaultRegistry();
  readonly dispatcher: WebhookDispatcher;
  /** Aborts hanging requests when the server closes. */
  readonly hangs = new Set<() => void>();
  /** At wall-clock time `wallAt` the emulator clock read `ledgerAt` (saved with the state). */
  anchor: ClockAnchor;
  private saveTimer: NodeJS.Timeout | null = null;
  private dirty = false;

  constructor(readonly options: RuntimeOptions) {
    this.limiter = new RateLimiter(options.rateLimits);
    this.dispatcher = new WebhookDispatcher({
      retryScale: options.webhookRetryScale,
      timeoutMs: options.webhookTimeoutMs,
      ledger: () => this.ledger,
    });
    const restored = options.restored ?? null;
    this.anchor = restored?.anchor ?? { wallAt: Date.now(), ledgerAt: 0 };
    this.ledger = this.adopt(restored?.ledger ?? options.initial(), restored?.anchor);
    if (!restored) this.changed();
  }

  /**
   * Makes `ledger` the live state: its events go to the webhook dispatcher, and the ids it makes from now on are new
   * to the process. Its clock is anchored at the present unless a saved anchor is given.
   */
  adopt(ledger: Ledger, anchor?: ClockAnchor): Ledger {
    ledger.goLive();
    ledger.onEvent = (event) => this.dispatcher.enqueue(event);
    this.ledger = ledger;
    this.anchor = anchor ?? { wallAt: Date.now(), ledgerAt: ledger.now };
    return ledger;
  }

  /**
   * With a real-time clock: moves the emulator clock to the present of its anchor, running the renewals, retries and
   * retirements that fell due. Returns whether anything changed.
   */
  tick(): boolean {
    if (!this.options.realTimeClock) return false;
    const target = this.anchor.ledgerAt + (Date.now() - this.anchor.wallAt);
    if (target <= this.ledger.now) return false;
    const result = advanceClock(this.ledger, target);
    const moved = result.renewals + result.declines + result.retired + result.expired > 0;
    if (moved) this.changed();
    return moved;
  }

  /** After a request that may have changed state: a clock moved ahead by hand is the new anchor; a save is due. */
  changed(): void {
    ledgerChanged(this.ledger);
    if (this.options.realTimeClock) {
      const projected = this.anchor.ledgerAt + (Date.now() - this.anchor.wallAt);
      if (this.ledger.now > projected) this.anchor = { wallAt: Date.now(), ledgerAt: this.ledger.now };
    }
    if (!this.options.stateFile) return;
    this.dirty = true;
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      this.save();
    }, this.options.saveDelayMs ?? 1_000);
    this.saveTimer.unref();
  }

  /** Writes the state file now if anything changed since the last save (also on close). */
  save(): void {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = null;
    }
    const file = this.options.stateFile;
    if (!file || !this.dirty) return;
    this.dirty = false;
    const anchor = this.options.realTimeClock ? this.anchor : { wallAt: Date.now(), ledgerAt: this.ledger.now };
    try {
      writeStateFile(file, this.ledger, anchor);
    } catch (error) {
      this.dirty = true;
      console.error(`[emulator] could not save the state to ${file}: ${(error as Error).message}`);
    }
  }

  /** Back to the startup state (or an empty one): deliveries, faults and rate-limit counters are cleared too. */
  reset(empty = false): void {
    this.dispatcher.clear();
    this.faults.clear();
    this.limiter.reset();
    this.adopt(empty ? new Ledger(this.ledger.now) : this.options.initial());
    this.changed();
  }

  replace(ledger: Ledger): void {
    this.dispatcher.clear();
    this.faults.clear();
    this.limiter.reset();
    this.adopt(ledger);
    this.changed();
  }
}
