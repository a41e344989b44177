import type { Millis } from "../time";
import type { Ledger } from "./ledger";
import { type Aggregate, aggregate } from "./report-aggregate";
import { stableRevision } from "./revision";
import type { GameState, PeriodState, ReversalEntry } from "./types";

/**
 * The attribution report of a window is read page by page (a recipient list of 20,000 is 200 pages), and every page
 * carries the same totals and order: the aggregate of the window is computed once and kept for its next pages.
 * A pull reads one window's pages in order and its sub-windows one after another, so the last few windows suffice.
 *
 * Why a kept aggregate is never stale: it is kept with the ledger's revision (revision.ts) and dropped as soon as the
 * revision moves. The revision moves at every change of what `aggregate` reads (a renewal settling, a refund, figures
 * overwritten by the admin API), and more: every Ledger method that adds or indexes a record, every refund and
 * dispute, the clock running renewals, every call but a GET (before, while and after it runs). A new ledger (load,
 * reset, restore) starts with no cache. `aggregate` does not read the clock, so the clock moving alone keeps it.
 * While a call that may change the state runs, nothing is kept or reused.
 */
export const REPORT_CACHE_SIZE = 4;

type Entry = {
  gameId: string;
  start: Millis;
  end: Millis;
  settledCount: number;
  reversalCount: number;
  result: Aggregate;
};

/** Per ledger (a load, reset or restore builds a new one): its revision and entries, most recently used last. */
const caches = new WeakMap<Ledger, { revision: number; entries: Entry[] }>();

/**
 * The aggregate of a game's window: `settled` and `reversals` are what the window holds now (its slices of the
 * game's indices). The result is shared between calls and must not be changed by the caller.
 */
export function windowAggregate(
  ledger: Ledger,
  game: GameState,
  window: { start: Millis; end: Millis },
  settled: PeriodState[],
  reversals: ReversalEntry[],
): Aggregate {
  const revision = stableRevision(ledger);
  if (revision === null) {
    caches.delete(ledger);
    return aggregate(settled, reversals, window);
  }
  let cache = caches.get(ledger);
  if (!cache || cache.revision !== revision) {
    cache = { revision, entries: [] };
    caches.set(ledger, cache);
  }
  const entries = cache.entries;
  const index = entries.findIndex(
    (entry) =>
      entry.gameId === game.gameId &&
      entry.start === window.start &&
      entry.end === window.end &&
      entry.settledCount === settled.length &&
      entry.reversalCount === reversals.length,
  );
  if (index >= 0) {
    const [hit] = entries.splice(index, 1) as [Entry];
    entries.push(hit);
    return hit.result;
  }
  const result = aggregate(settled, reversals, window);
  entries.push({
    gameId: game.gameId,
    start: window.start,
    end: window.end,
    settledCount: settled.length,
    reversalCount: reversals.length,
    result,
  });
  if (entries.length > REPORT_CACHE_SIZE) entries.splice(0, entries.length - REPORT_CACHE_SIZE);
  return result;
}

/** How many window aggregates are kept for the ledger (tests). */
export function cachedWindowCount(ledger: Ledger): number {
  return caches.get(ledger)?.entries.length ?? 0;
}
