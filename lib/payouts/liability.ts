import "server-only";
import type { Db, Trx } from "@/db";
import {
  listBatchesLiveAt,
  listCarryLinks,
  listEndedWindowSnapshots,
  listStatementStatesAt,
  sumSnapshotNetByRecipient,
} from "@/db/queries/liability";
import { formatUsd, money, type Money } from "@/lib/money";
import type { TimeWindow } from "@/lib/time";

/**
 * Liability on an accrual basis: what each recipient had earned by an instant and had not been paid, whether or not
 * anyone had looked at it yet. Earned means the net attributed of every window that had ended by then (a renewal
 * belongs to the window it settled in, a reversal to the window of the refund). Split by where it stood then:
 *
 * - not yet in a batch: windows ended by then without a batch then, from their latest snapshot version as a statement
 *   prepared then would take it (a reversal reported again, part of which a batch of another window approved by then
 *   deducted, is not deducted twice); windows overlapping one already counted, such as a quarter beside its months,
 *   are left out;
 * - draft, approved (not yet paid), held: statements of batches prepared by then, in their state then, for what they
 *   had available (net attributed + carried in);
 * - carried: balances carried out of statements closed by then (paid, or closed with nothing to pay) and not yet taken
 *   in by a statement counted here; negative ones offset later payouts, positive ones were under the minimum payout.
 *
 * Paid amounts are not owed. total owed = the sum of the parts; every balance is counted once.
 */

export type LiabilityRow = {
  recipientPlayerId: number;
  playerName: string | null;
  playerEmail: string | null;
  notInBatchUsd: string;
  draftUsd: string;
  approvedUnpaidUsd: string;
  heldUsd: string;
  /** rolledOverUsd + carriedNegativeUsd. */
  carriedUsd: string;
  /** A positive balance taken into a later statement: under the minimum, or held and carried forward whole. */
  rolledOverUsd: string;
  carriedNegativeUsd: string;
  totalOwedUsd: string;
};

export type LiabilityWindow = {
  window: TimeWindow;
  source: "snapshot" | "batch";
  snapshotVersion: number | null;
  /** A snapshot read before its window ended: what was earned after the read is missing from the figures. */
  readBeforeEnd: boolean;
};

export type Liability = {
  rows: LiabilityRow[];
  /** The windows counted: not yet in a batch (from a snapshot version) or in a batch. */
  windows: LiabilityWindow[];
};

type Acc = {
  name: string | null;
  email: string | null;
  notInBatch: Money;
  draft: Money;
  approved: Money;
  held: Money;
  negative: Money;
  rolled: Money;
};

export async function listLiability(db: Db, params: { gameId: string; asOf: Date }): Promise<Liability> {
  // One view of the records for every read: whether a statement left out as closed for good took a balance in is
  // read after the statements, and a payment coming back between the two would count that balance as still owed.
  return db
    .transaction()
    .setIsolationLevel("repeatable read")
    .setAccessMode("read only")
    .execute((trx) => liabilityIn(trx, params));
}

async function liabilityIn(db: Trx, params: { gameId: string; asOf: Date }): Promise<Liability> {
  const { gameId, asOf } = params;
  const acc = new Map<string, Acc>();
  const get = (id: string, name: string | null, email: string | null): Acc => {
    let a = acc.get(id);
    if (!a) {
      const zero = money("0");
      a = { name, email, notInBatch: zero, draft: zero, approved: zero, held: zero, negative: zero, rolled: zero };
      acc.set(id, a);
    }
    a.name ??= name;
    a.email ??= email;
    return a;
  };

  const [batches, statements, snapshots] = await Promise.all([
    listBatchesLiveAt(db, { gameId, asOf }),
    listStatementStatesAt(db, { gameId, asOf }),
    listEndedWindowSnapshots(db, { gameId, asOf }),
  ]);
  const windows: LiabilityWindow[] = [];

  // Statements of batches whose window had ended: earned, in the state they were in.
  const endedBatches = new Set(batches.filter((b) => b.windowEnd.getTime() <= asOf.getTime()).map((b) => b.id));
  for (const b of batches) {
    if (endedBatches.has(b.id))
      windows.push({
        window: { startMs: b.windowStart.getTime(), endMs: b.windowEnd.getTime() },
        source: "batch",
        snapshotVersion: null,
        // Paid early (its window open when prepared): earned after the read is not in the batch's figures.
        readBeforeEnd: !b.windowClosed,
      });
  }
  const counted = new Set<string>();
  for (const s of statements) {
    if (!endedBatches.has(s.batchId)) continue;
    // In a payment file or paid and returned: still owed, approved to pay.
    const owed = s.state === "approved" || s.state === "in_payment" || s.state === "returned";
    if (s.state !== "draft" && !owed && s.state !== "held") continue;
    counted.add(s.statementId);
    const a = get(s.recipientPlayerId, s.playerName, s.playerEmail);
    // A batch discarded later lost its carried-in links: the balances it took in are still counted as carried.
    const amount = money(s.discardedLater ? s.netAttributedUsd : s.availableUsd);
    if (s.state === "draft") a.draft = a.draft.plus(amount);
    else if (owed) a.approved = a.approved.plus(amount);
    else a.held = a.held.plus(amount);
  }

  // Balances carried out of statements closed by then, of windows ended by then, unless a counted statement took them
  // in (a window still running, paid early, earned nothing yet on an accrual basis).
  const closed = statements.filter(
    (s) =>
      endedBatches.has(s.batchId) && (s.state === "paid" || s.state === "carried") && !money(s.carryOutUsd).isZero(),
  );
  const closedThen = new Map<string, { state: string; batchId: string }>(
    statements.filter((s) => s.state === "paid" || s.state === "carried").map((s) => [s.statementId, s]),
  );
  // The links out of every statement closed by then with a balance: a chain may pass through windows not yet ended.
  const carriers = statements.filter((s) => closedThen.has(s.statementId) && !money(s.carryOutUsd).isZero());
  const links = await listCarryLinks(db, { gameId, fromStatementIds: carriers.map((s) => s.statementId), asOf });
  const takenBy = new Map(links.map((l) => [l.from, l.to]));
  // A taker closed for good by then (paid, or carried with nothing out) is not among the statements read.
  for (const l of links) if (l.settled) closedThen.set(l.to, l.settled);
  // Not owed from here when taken in by a statement counted above, paid out, or carried on by a statement of an
  // ended window (counted from there). Carried on by a statement of a window not yet ended, it goes where that one's
  // balance went: owed here only when no statement took it further (a third one counted it, or paid it, otherwise).
  const owedHere = (from: string): boolean => {
    const seen = new Set<string>();
    for (let taker = takenBy.get(from); taker !== undefined && !seen.has(taker); taker = takenBy.get(taker)) {
      seen.add(taker);
      if (counted.has(taker)) return false;
      const closedTaker = closedThen.get(taker);
      if (closedTaker === undefined) return true;
      if (closedTaker.state === "paid" || endedBatches.has(closedTaker.batchId)) return false;
    }
    return true;
  };
  for (const s of closed) {
    if (!owedHere(s.statementId)) continue;
    const a = get(s.recipientPlayerId, s.playerName, s.playerEmail);
    const out = money(s.carryOutUsd);
    if (out.isNegative()) a.negative = a.negative.plus(out);
    else a.rolled = a.rolled.plus(out);
  }

  // Windows ended by then with no batch then: their latest snapshot version. Windows overlapping a batch counted
  // above, or one already taken (a quarter beside its months holds the same renewals), are left out. A batch of a
  // window not ended by then counts nothing, so a window it overlaps still counts from its snapshot (March, ended,
  // beside a batch of 15 March to 15 April prepared early).
  const taken = batches
    .filter((b) => endedBatches.has(b.id))
    .map((b) => ({ start: b.windowStart.getTime(), end: b.windowEnd.getTime() }));
  const unbatched: string[] = [];
  for (const s of snapshots) {
    const start = s.windowStart.getTime();
    const end = s.windowEnd.getTime();
    if (taken.some((w) => w.start < end && w.end > start)) continue;
    taken.push({ start, end });
    unbatched.push(s.snapshotId);
    windows.push({
      window: { startMs: start, endMs: end },
      source: "snapshot",
      snapshotVersion: s.version,
      readBeforeEnd: !s.windowClosed,
    });
  }
  for (const r of await sumSnapshotNetByRecipient(db, { gameId, snapshotIds: unbatched, asOf })) {
    const a = get(r.recipientPlayerId, r.playerName, r.playerEmail);
    a.notInBatch = a.notInBatch.plus(money(r.netUsd));
  }

  const owed: { total: Money; row: LiabilityRow }[] = [];
  for (const [id, a] of acc) {
    const parts = [a.notInBatch, a.draft, a.approved, a.held, a.rolled, a.negative];
    if (parts.every((m) => m.isZero())) continue;
    const total = parts.reduce((sum, m) => sum.plus(m), money("0"));
    owed.push({
      total,
      row: {
        recipientPlayerId: Number(id),
        playerName: a.name,
        playerEmail: a.email,
        notInBatchUsd: formatUsd(a.notInBatch),
        draftUsd: formatUsd(a.draft),
        approvedUnpaidUsd: formatUsd(a.approved),
        heldUsd: formatUsd(a.held),
        carriedUsd: formatUsd(a.rolled.plus(a.negative)),
        rolledOverUsd: formatUsd(a.rolled),
        carriedNegativeUsd: formatUsd(a.negative),
        totalOwedUsd: formatUsd(total),
      },
    });
  }
  // Largest first, by the totals as computed (not read back from their text for every comparison).
  owed.sort((x, y) => y.total.comparedTo(x.total) || x.row.recipientPlayerId - y.row.recipientPlayerId);
  const rows = owed.map((o) => o.row);
  windows.sort((x, y) => y.window.startMs - x.window.startMs || y.window.endMs - x.window.endMs);
  return { rows, windows };
}

/** Calendar months among the `count` before the instant's month that had ended and no counted window covers. */
export function uncountedMonths(windows: readonly LiabilityWindow[], asOf: Date, count = 12): string[] {
  const out: string[] = [];
  const d = new Date(asOf.getTime());
  let year = d.getUTCFullYear();
  let month = d.getUTCMonth();
  for (let i = 0; i < count; i += 1) {
    const start = Date.UTC(year, month, 1);
    const end = Date.UTC(year, month + 1, 1);
    if (end <= asOf.getTime() && !windows.some((w) => w.window.startMs <= start && w.window.endMs >= end)) {
      out.push(`${year}-${String(month + 1).padStart(2, "0")}`);
    }
    month -= 1;
    if (month < 0) {
      month = 11;
      year -= 1;
    }
  }
  return out;
}
