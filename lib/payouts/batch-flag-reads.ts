import "server-only";
import type { Db } from "@/db";
import { hasStatementNoFlagCanStandOn, listFlagCandidates } from "@/db/queries/flag-candidates";
import { type ProfileRules, readProfileRules } from "@/lib/profiles/flags";
import { recipientFlagsNow } from "./balance-flags";
import { stopsPaymentByHand } from "./flag-info";
import { type ActiveFlag, type BatchFlags, openFlagsOf, readRecipientFlags } from "./flags";

// What a batch's page asks of its statements' flags before offering approval or a payment by hand, read from the few
// statements a flag can stand on (db/queries/flag-candidates.ts) rather than from every statement of the batch.

type Target = { gameId: string; batchId: string };

/**
 * Recipients whose approved statement in a draft batch has an open flag (raised since it was approved: a chargeback,
 * changed payout details, a tax form that expired): approving the batch is refused while one stands, so the page does
 * not offer it. The window's flags aside: they stand on every statement, and the caller asks only when none is open.
 * Read without the batch's lock; the approval reads them again under it.
 */
export async function approvedWithOpenFlags(
  db: Db,
  batch: Target & { snapshotId: string },
  shared?: BatchFlags,
): Promise<number[]> {
  return approvedFlagged(db, batch, shared, () => true, Infinity);
}

/**
 * Whether a draft batch has a draft statement with no open flag, which approving the unflagged statements would
 * approve: one no flag can stand on, else the first of the others found without one. The window's flags aside, as
 * above. Read without the batch's lock.
 */
export async function hasUnflaggedDraft(
  db: Db,
  batch: Target & { snapshotId: string },
  read?: BatchFlags,
): Promise<boolean> {
  const shared = await sharedFlags(db, batch, read);
  // A draft no flag can stand on is unflagged: most batches have one, found without reading the others.
  if (await hasStatementNoFlagCanStandOn(db, candidateQuery(batch, "draft", shared))) return true;
  for await (const s of evaluated(db, batch, shared, await flagCandidates(db, batch, "draft", shared)))
    if (s.open.length === 0) return true;
  return false;
}

/**
 * Recipients (at most `most`) whose approved statement has an open flag raised since approval that stops a payment
 * recorded by hand, which "Mark approved paid" refuses while one stands, so the page does not offer it. Read without
 * the batch's lock.
 */
export async function approvedBarredFromPayment(
  db: Db,
  batch: Target & { snapshotId: string },
  shared?: BatchFlags,
  most = 4,
): Promise<number[]> {
  return approvedFlagged(db, batch, shared, (f) => stopsPaymentByHand(f.flag), most);
}

/**
 * The approved statements with an open flag that `counts`, up to `most` recipients, from the few statements such a
 * flag can stand on (reading every statement's flags on each view of a batch of a hundred thousand took seconds).
 */
async function approvedFlagged(
  db: Db,
  batch: Target & { snapshotId: string },
  read: BatchFlags | undefined,
  counts: (flag: ActiveFlag) => boolean,
  most: number,
): Promise<number[]> {
  const shared = await sharedFlags(db, batch, read);
  const out: number[] = [];
  for await (const s of evaluated(db, batch, shared, await flagCandidates(db, batch, "approved", shared))) {
    if (s.open.some(counts)) out.push(s.recipientPlayerId);
    if (out.length >= most) break;
  }
  return out;
}

/**
 * The flags every statement of the batch shares but the window's (the disputes, carried ones included, and the
 * overrides): `read` as the caller read them already (the window page), read here otherwise. The window's flags stand
 * on every statement: the callers ask only when none is open.
 */
async function sharedFlags(
  db: Db,
  batch: Target & { snapshotId: string },
  read?: BatchFlags,
): Promise<BatchFlags & { rules: ProfileRules }> {
  const [shared, rules] = await Promise.all([
    read ?? readRecipientFlags(db, { ...batch, recipientPlayerIds: [] }),
    read?.rules ?? readProfileRules(db, batch),
  ]);
  return { ...shared, window: [], rules };
}

/** The batch's statements in `state` that a flag could stand open on (listFlagCandidates). */
function flagCandidates(
  db: Db,
  batch: Target,
  state: "approved" | "draft",
  shared: BatchFlags & { rules: ProfileRules },
): Promise<{ recipientPlayerId: number; recipientFlags: string[] }[]> {
  return listFlagCandidates(db, candidateQuery(batch, state, shared));
}

/** What decides which statements of the batch in `state` a flag could stand on: the rules, the disputes' recipients. */
function candidateQuery(batch: Target, state: "approved" | "draft", shared: BatchFlags & { rules: ProfileRules }) {
  const { requireTaxForm, profilesInUse, today } = shared.rules;
  return {
    ...batch,
    state,
    profilesInUse,
    taxFormBy: requireTaxForm ? today : null,
    also: [...new Set(shared.disputes.flatMap((f) => (f.recipientPlayerId === null ? [] : [f.recipientPlayerId])))],
  };
}

/** Statements with their open flags, their recipients' profile flags read a thousand at a time. */
async function* evaluated(
  db: Db,
  batch: Target & { snapshotId: string },
  shared: BatchFlags & { rules: ProfileRules },
  statements: readonly { recipientPlayerId: number; recipientFlags: string[] }[],
): AsyncGenerator<{ recipientPlayerId: number; open: ActiveFlag[] }> {
  for (let i = 0; i < statements.length; i += 1000) {
    const page = statements.slice(i, i + 1000);
    const recipientPlayerIds = page.map((s) => s.recipientPlayerId);
    const profiles = await recipientFlagsNow(db, { ...batch, recipientPlayerIds, rules: shared.rules });
    const flags = { ...shared, profiles };
    for (const s of page)
      yield { recipientPlayerId: s.recipientPlayerId, open: openFlagsOf(flags, s.recipientPlayerId, s.recipientFlags) };
  }
}
