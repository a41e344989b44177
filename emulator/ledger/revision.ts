import type { Ledger } from "./ledger";

/**
 * A ledger's revision: a counter that moves whenever its state changes or may have changed, so that a view computed
 * from it (the attribution report's aggregate, report-cache.ts) can tell whether it is still current. Kept beside the
 * ledger, not in it: the state file stores every field of the ledger, and a restored ledger is a new object with a
 * fresh revision anyway.
 *
 * It moves at every Ledger method that adds or indexes a record, at every refund and dispute, after every call but a
 * GET (and while one runs, see `beginChange`) and whenever the clock runs renewals: see runtime.ts and server.ts.
 */
type Tracker = { revision: number; changing: number };

const trackers = new WeakMap<Ledger, Tracker>();

function trackerOf(ledger: Ledger): Tracker {
  let tracker = trackers.get(ledger);
  if (!tracker) {
    tracker = { revision: 0, changing: 0 };
    trackers.set(ledger, tracker);
  }
  return tracker;
}

/** The ledger's state changed (or may have): every view computed from it before is stale. */
export function ledgerChanged(ledger: Ledger): void {
  trackerOf(ledger).revision++;
}

/**
 * A call that may change the ledger starts: until `endChange`, `stableRevision` is null, so nothing computed while
 * it runs is kept (a call can change the state in several steps, or be held by a fault after changing it).
 */
export function beginChange(ledger: Ledger): void {
  const tracker = trackerOf(ledger);
  tracker.changing++;
  tracker.revision++;
}

export function endChange(ledger: Ledger): void {
  const tracker = trackerOf(ledger);
  tracker.changing = Math.max(0, tracker.changing - 1);
  tracker.revision++;
}

/** The ledger's current revision, or null while a change is under way. */
export function stableRevision(ledger: Ledger): number | null {
  const tracker = trackerOf(ledger);
  return tracker.changing > 0 ? null : tracker.revision;
}
