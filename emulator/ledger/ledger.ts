import { randomBytes } from "node:crypto";
import type { Millis } from "../time";
import type { DisputeState } from "./disputes";
import { ledgerChanged } from "./revision";
import type {
  CardState,
  GameState,
  LedgerEvent,
  PeriodState,
  PlayerState,
  RefundEvent,
  ReversalEntry,
  StoredReceipt,
  SubscriptionState,
} from "./types";

/**
 * What ledgers in service have handed out in this process. A reset or a new load builds a new ledger whose loaded
 * records get the same deterministic ids again, but whatever is made while it runs (renewals, refunds, refund keys,
 * processor references, new period ids) must never repeat an id an earlier ledger of the process handed out: a client
 * that keeps ids across a reset would otherwise see two different records under one id. The salt is random per
 * process, so ids made after a restart differ as well.
 */
const live = { salt: randomBytes(4).toString("hex"), generation: 0, nextPeriodId: 1 };

/** Deterministic source of id suffixes (mulberry32), so that a scenario loads to the same ids every time. */
export class IdSource {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
}

type ScheduleEntry = { at: Millis; token: number; sub: SubscriptionState };

/** A binary min-heap of subscription touches (next charge, retry or retirement), with lazy deletion by token. */
class Schedule {
  private heap: ScheduleEntry[] = [];
  private tokens = 0;

  set(sub: SubscriptionState, at: Millis | null): void {
    sub.scheduleToken = ++this.tokens;
    if (at === null) return;
    this.heap.push({ at, token: sub.scheduleToken, sub });
    this.up(this.heap.length - 1);
  }

  /** The earliest live entry at or before `limit`, removed from the heap. */
  popDue(limit: Millis): ScheduleEntry | null {
    for (;;) {
      const top = this.heap[0];
      if (!top) return null;
      if (top.token !== top.sub.scheduleToken) {
        this.removeTop();
        continue;
      }
      if (top.at > limit) return null;
      this.removeTop();
      return top;
    }
  }

  clear(): void {
    this.heap = [];
  }

  private less(a: ScheduleEntry, b: ScheduleEntry): boolean {
    return a.at < b.at || (a.at === b.at && a.token < b.token);
  }

  private removeTop(): void {
    const last = this.heap.pop();
    if (!last || this.heap.length === 0) return;
    this.heap[0] = last;
    this.down(0);
  }

  private up(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const a = this.heap[i] as ScheduleEntry;
      const b = this.heap[parent] as ScheduleEntry;
      if (!this.less(a, b)) break;
      this.heap[i] = b;
      this.heap[parent] = a;
      i = parent;
    }
  }

  private down(index: number): void {
    let i = index;
    const n = this.heap.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.less(this.heap[left] as ScheduleEntry, this.heap[smallest] as ScheduleEntry))
        smallest = left;
      if (right < n && this.less(this.heap[right] as ScheduleEntry, this.heap[smallest] as ScheduleEntry))
        smallest = right;
      if (smallest === i) return;
      const tmp = this.heap[i] as ScheduleEntry;
      this.heap[i] = this.heap[smallest] as ScheduleEntry;
      this.heap[smallest] = tmp;
      i = smallest;
    }
  }
}

function key(...parts: (string | number)[]): string {
  return parts.join("\u0000");
}

/**
 * The emulator's whole state. Routes and the clock read and change it through the functions in this folder; the
 * class itself only stores, indexes and looks up.
 */
export class Ledger {
  now: Millis;
  /** A maintenance pause: amount and payment-method changes answer 503 and refunds FLOW_PAUSED; cancel still works. */
  paused = false;
  readonly games = new Map<string, GameState>();
  readonly players = new Map<string, PlayerState>();
  readonly playersByEmail = new Map<string, PlayerState>();
  readonly cards = new Map<number, CardState>();
  readonly subscriptions = new Map<string, SubscriptionState>();
  readonly subscriptionsByPlayer = new Map<string, SubscriptionState[]>();
  readonly periods = new Map<number, PeriodState>();
  readonly receipts = new Map<string, StoredReceipt>();
  /** Chargebacks opened from the admin API, oldest first: plain data (see disputes.ts). */
  disputes: DisputeState[] = [];
  readonly schedule = new Schedule();
  readonly ids: IdSource;
  nextPeriodId = 1;
  nextCardId = 1;
  /** Receives every event a live change emits (renewed, refunded, canceled, purchase.refunded, purchase.disputed). */
  onEvent: (event: LedgerEvent) => void = () => {};

  constructor(now: Millis, idSeed = 1) {
    this.now = now;
    this.ids = new IdSource(idSeed);
  }

  emit(gameId: string, type: string, data: Record<string, unknown>): void {
    this.onEvent({ gameId, type, data, at: this.now });
  }

  private idSeq = 0;
  /** Null while the ledger is being loaded; the run tag of its ids once it is in service (see goLive). */
  private liveTag: string | null = null;

  /**
   * An id: a sequence number (unique in the ledger) and a pseudo-random tail (so ids do not look sequential). Ids made
   * while loading are deterministic (same scenario or seed, same ids); once in service they also carry the process's
   * salt and the ledger's generation, so no id repeats across resets and loads.
   */
  newId(prefix: string): string {
    this.idSeq++;
    const seq = this.idSeq.toString(36).padStart(8, "0");
    const tail = this.ids.next().toString(16).padStart(8, "0");
    return this.liveTag === null ? `${prefix}${seq}${tail}` : `${prefix}${this.liveTag}${seq}${tail}`;
  }

  /** Puts a loaded ledger in service: later ids carry a new generation, and new period ids continue the process's. */
  goLive(): void {
    if (this.liveTag !== null) return;
    live.generation++;
    this.liveTag = `${live.salt}${live.generation.toString(36).padStart(4, "0")}`;
    this.nextPeriodId = Math.max(this.nextPeriodId, live.nextPeriodId);
    live.nextPeriodId = this.nextPeriodId;
  }

  /**
   * A ledger read back from a state file goes live again in this process: ids it makes from now on carry this
   * process's salt, and its period ids join the process's count.
   */
  resume(): void {
    this.liveTag = null;
  }

  addGame(game: GameState): void {
    ledgerChanged(this);
    this.games.set(game.gameId, game);
  }

  addPlayer(player: PlayerState): void {
    ledgerChanged(this);
    this.players.set(key(player.gameId, player.playerId), player);
    this.playersByEmail.set(key(player.gameId, player.email.toLowerCase()), player);
  }

  player(gameId: string, playerId: number): PlayerState | undefined {
    return this.players.get(key(gameId, playerId));
  }

  playerByEmail(gameId: string, email: string): PlayerState | undefined {
    return this.playersByEmail.get(key(gameId, email.toLowerCase()));
  }

  addCard(card: CardState): void {
    ledgerChanged(this);
    this.cards.set(card.cardId, card);
    if (card.cardId >= this.nextCardId) this.nextCardId = card.cardId + 1;
  }

  cardsOf(gameId: string, playerId: number): CardState[] {
    const out: CardState[] = [];
    for (const card of this.cards.values()) if (card.gameId === gameId && card.playerId === playerId) out.push(card);
    return out;
  }

  addSubscription(sub: SubscriptionState): void {
    ledgerChanged(this);
    this.subscriptions.set(sub.subscriptionId, sub);
    const k = key(sub.gameId, sub.playerId);
    const list = this.subscriptionsByPlayer.get(k);
    if (list) list.push(sub);
    else this.subscriptionsByPlayer.set(k, [sub]);
  }

  /** A subscription of this game, or undefined (ids of another game do not resolve). */
  subscription(gameId: string, subscriptionId: string): SubscriptionState | undefined {
    const sub = this.subscriptions.get(subscriptionId);
    return sub && sub.gameId === gameId ? sub : undefined;
  }

  subscriptionsOf(gameId: string, playerId: number): SubscriptionState[] {
    return this.subscriptionsByPlayer.get(key(gameId, playerId)) ?? [];
  }

  addPeriod(period: PeriodState): void {
    ledgerChanged(this);
    this.periods.set(period.periodId, period);
    if (period.periodId >= this.nextPeriodId) this.nextPeriodId = period.periodId + 1;
    if (this.liveTag !== null) live.nextPeriodId = Math.max(live.nextPeriodId, this.nextPeriodId);
    period.sub.periods.push(period);
  }

  period(gameId: string, periodId: number): PeriodState | undefined {
    const period = this.periods.get(periodId);
    return period && period.sub.gameId === gameId ? period : undefined;
  }

  receiptKey(gameId: string, subscriptionId: string, clientRequestId: string): string {
    return key(gameId, subscriptionId, clientRequestId);
  }

  /** Keeps the settled index ordered: appends when the period is the latest, marks dirty otherwise. */
  indexSettled(period: PeriodState): void {
    ledgerChanged(this);
    const game = this.games.get(period.sub.gameId);
    if (!game || period.paidAt === null) return;
    const last = game.settledIndex[game.settledIndex.length - 1];
    if (!game.settledDirty && (!last || compareSettled(last, period) <= 0)) game.settledIndex.push(period);
    else {
      game.settledIndex.push(period);
      game.settledDirty = true;
    }
  }

  settledIndex(game: GameState): PeriodState[] {
    if (game.settledDirty) {
      game.settledIndex.sort(compareSettled);
      game.settledDirty = false;
    }
    return game.settledIndex;
  }

  markReversalsChanged(gameId: string): void {
    ledgerChanged(this);
    const game = this.games.get(gameId);
    if (game) game.reversalDirty = true;
  }

  /**
   * Reversal entries of a game sorted by time. Spec: "each reversal is reported in the window of the refund itself";
   * the part of a period known only from its row is one entry at its latest period-row refund ("reported wholly in
   * the window of the latest refund").
   */
  reversalIndex(game: GameState): ReversalEntry[] {
    if (!game.reversalDirty) return game.reversalIndex;
    game.reversalIndex = reversalEntriesOf(this.settledIndex(game));
    game.reversalDirty = false;
    return game.reversalIndex;
  }
}

/**
 * Reversal entries of periods, sorted by time: every receipt event on its own, at its own time, and the period-row
 * portion of a period (its refunds without a receipt) as one entry at the latest of those refunds. A later period-row
 * refund therefore never moves a receipt event out of its window: a closed window stays reproducible for every
 * refund the service holds a receipt for.
 */
export function reversalEntriesOf(periods: Iterable<PeriodState>): ReversalEntry[] {
  const entries: ReversalEntry[] = [];
  for (const period of periods) {
    let latestRow: RefundEvent | null = null;
    for (const event of period.refunds) {
      if (event.hasReceipt) entries.push({ at: event.refundedAt, period, event });
      else latestRow = event;
    }
    if (latestRow) entries.push({ at: latestRow.refundedAt, period, event: null });
  }
  entries.sort((a, b) => a.at - b.at || a.period.periodId - b.period.periodId);
  return entries;
}

export function compareSettled(a: PeriodState, b: PeriodState): number {
  return (a.paidAt ?? 0) - (b.paidAt ?? 0) || a.periodId - b.periodId;
}
