import "server-only";
import type { Db } from "@/db";
import { listPaymentReturns, type PaymentReturnRow } from "@/db/queries/payment-flow";
import { listApprovedBatches, listCarryLinksOf } from "@/db/queries/payout-ledger";
import { formatUsd, money } from "@/lib/money";
import { formatInstant } from "@/lib/time";
import { iteratePayoutStatements, type PayoutStatement } from "./statements";

export {
  getLiveBatch,
  getPayoutBatch,
  iteratePayoutStatements,
  listPayoutBatches,
  listPayoutStatements,
  listStatementsInState,
  type PayoutBatchSummary,
  type PayoutStatement,
  toBatchSummary,
  toStatement,
} from "./statements";

/**
 * The recipient ledger, read-only: what the payout exports, the recipient page and the invariant check read.
 *
 * Every statement of an approved (or paid) batch turns into entries on the recipient's account of "revenue share
 * payable". `amountUsd` is signed: positive raises what Payout Desk owes the recipient, negative lowers it.
 *
 * | kind      | amount                 | when (`at`)                       | exists when                             |
 * |-----------|------------------------|-----------------------------------|-----------------------------------------|
 * | accrual   | + gross attributed     | the batch's approval              | gross ≠ 0                               |
 * | reversal  | − reversed attributed  | the batch's approval              | reversed ≠ 0                            |
 * | carry_in  | + carried in           | the batch's approval              | carried in ≠ 0 (one entry per source)   |
 * | payment   | − amount paid          | when the payment was recorded     | the statement is paid, and once for     |
 * |           |                        |                                   | each earlier payment that came back     |
 * | payment_returned | + amount returned | when the return was recorded   | a paid payment came back (returned)     |
 * | payment_undone | + amount undone    | when the undo was recorded        | a payment recorded by mistake, undone   |
 * | carry_out | − carried out (< 0)    | when the statement closed         | closed with a negative balance          |
 * | rollover  | − carried out (> 0)    | when the statement closed         | closed with a payable under the minimum,|
 * |           |                        |                                   | or a held balance carried forward       |
 *
 * The entries of a closed statement (paid or carried) add up to zero; a statement still approved-unpaid or held
 * leaves its balance open, which is what the liability view reports. A carry_out/rollover of one statement is the
 * carry_in of exactly one later statement (same amount, opposite sign), so across a recipient's closed statements
 * the carries cancel and "paid + carried = sum of net attributed" (lib/payouts/invariant.ts).
 *
 * Order: batch (window start), recipient id, then accrual, reversal, carry_in, payment, carry_out/rollover.
 */

export type LedgerEntryKind =
  | "accrual"
  | "reversal"
  | "carry_in"
  | "carry_out"
  | "rollover"
  | "payment"
  | "payment_returned"
  | "payment_undone";

export const LEDGER_ENTRY_KINDS: readonly LedgerEntryKind[] = [
  "accrual",
  "reversal",
  "carry_in",
  "carry_out",
  "rollover",
  "payment",
  "payment_returned",
  "payment_undone",
];

export type LedgerEntry = {
  /** Stable id of the entry: `${statementId}:${kind}` (carry_in: `${statementId}:carry_in:${fromStatementId}`). */
  entryId: string;
  statementId: string;
  recipientPlayerId: number;
  kind: LedgerEntryKind;
  /** Signed decimal string with two decimals: the change in what is owed to the recipient. */
  amountUsd: string;
  /** ISO 8601 UTC ("2026-04-02T09:15:00Z"). */
  at: string;
  batchId: string;
  snapshotId: string;
  snapshotVersion: number;
  /** The window the statement pays from, ISO 8601 UTC, end exclusive. */
  windowStart: string;
  windowEnd: string;
  /**
   * accrual, reversal: "snapshot <id> v<version>"; carry_in: the statement the balance came from; carry_out and
   * rollover: the statement that took it over (null while no later statement has); payment: the external reference.
   */
  reference: string | null;
  /** The payment date as recorded ("2026-04-03"): a payment's, and a return's or an undoing's of the payment. */
  paidOn: string | null;
  /** The day the statement's earnings were accrued: its batch's approval, UTC ("2026-04-02"). */
  accruedOn: string;
  /** Payment method, payments only. */
  paymentMethod: string | null;
};

type CarryLink = { from: string; to: string; amount: string };

async function carriesOf(
  db: Db,
  statementIds: string[],
): Promise<{ into: Map<string, CarryLink[]>; outOf: Map<string, CarryLink> }> {
  const into = new Map<string, CarryLink[]>();
  const outOf = new Map<string, CarryLink>();
  const ids = new Set(statementIds);
  for (const r of await listCarryLinksOf(db, statementIds)) {
    const link = { from: r.from_statement_id, to: r.to_statement_id, amount: r.amount_usd };
    if (ids.has(r.to_statement_id)) into.set(r.to_statement_id, [...(into.get(r.to_statement_id) ?? []), link]);
    if (ids.has(r.from_statement_id)) outOf.set(r.from_statement_id, link);
  }
  return { into, outOf };
}

/** The entries of one statement (see the table at the top), given the carries into and out of it. */
export function statementEntries(
  s: PayoutStatement,
  approvedAt: string,
  carries: { into: CarryLink[]; outOf: CarryLink | null },
  returns: readonly PaymentReturnRow[] = [],
): LedgerEntry[] {
  const base = {
    statementId: s.id,
    recipientPlayerId: s.recipientPlayerId,
    batchId: s.batchId,
    snapshotId: s.snapshotId,
    snapshotVersion: s.snapshotVersion,
    windowStart: s.windowStart,
    windowEnd: s.windowEnd,
    paidOn: null,
    paymentMethod: null,
    accruedOn: approvedAt.slice(0, 10),
  };
  const snapshotRef = `snapshot ${s.snapshotId} v${s.snapshotVersion}`;
  const out: LedgerEntry[] = [];
  const gross = money(s.grossAttributedUsd);
  const reversed = money(s.reversedAttributedUsd);
  if (!gross.isZero())
    out.push({
      ...base,
      entryId: `${s.id}:accrual`,
      kind: "accrual",
      amountUsd: formatUsd(gross),
      at: approvedAt,
      reference: snapshotRef,
    });
  if (!reversed.isZero()) {
    out.push({
      ...base,
      entryId: `${s.id}:reversal`,
      kind: "reversal",
      amountUsd: formatUsd(reversed.negated()),
      at: approvedAt,
      reference: snapshotRef,
    });
  }
  for (const link of carries.into) {
    if (money(link.amount).isZero()) continue;
    out.push({
      ...base,
      entryId: `${s.id}:carry_in:${link.from}`,
      kind: "carry_in",
      amountUsd: formatUsd(link.amount),
      at: approvedAt,
      reference: `statement ${link.from}`,
    });
  }
  // The statement's payments in the order they were made: each one that came back, then the one in force. A
  // payment's entry keeps its id when it comes back (the first is "<statement>:payment", the n-th
  // "<statement>:payment:n"), so a ledger that took a payment before its return is not given it again under a new
  // journal number.
  let payments = 0;
  const paymentEntryId = (): string => {
    payments++;
    return payments === 1 ? `${s.id}:payment` : `${s.id}:payment:${payments}`;
  };
  const returned = returns
    .filter((r) => r.kind === "returned" && r.paidAt)
    .sort((a, b) => a.at.getTime() - b.at.getTime() || a.id.localeCompare(b.id));
  // A payment that came back: the payment as it was, then its return (the amount is owed again). One recorded by
  // mistake and undone keeps its entry too (a ledger may have taken it), undone by an entry of its own.
  for (const r of returned) {
    if (!r.paidAt) continue;
    out.push({
      ...base,
      entryId: paymentEntryId(),
      kind: "payment",
      amountUsd: formatUsd(money(r.amountUsd).negated()),
      at: formatInstant(r.paidAt),
      reference: r.paymentReference,
      paidOn: r.paidOn,
      paymentMethod: r.paymentMethod,
    });
    const kind = r.undone ? "payment_undone" : "payment_returned";
    out.push({
      ...base,
      entryId: `${s.id}:${kind}:${r.id}`,
      kind,
      amountUsd: formatUsd(r.amountUsd),
      at: formatInstant(r.at),
      reference: r.paymentReference,
      paidOn: r.paidOn,
    });
  }
  if (s.state === "paid" && s.paidAmountUsd !== null && s.closedAt) {
    out.push({
      ...base,
      entryId: paymentEntryId(),
      kind: "payment",
      amountUsd: formatUsd(money(s.paidAmountUsd).negated()),
      at: s.closedAt,
      reference: s.paymentReference,
      paidOn: s.paidOn,
      paymentMethod: s.paymentMethod,
    });
  }
  const carryOut = money(s.carryOutUsd);
  if ((s.state === "paid" || s.state === "carried") && s.closedAt && !carryOut.isZero()) {
    const kind: LedgerEntryKind = carryOut.isNegative() ? "carry_out" : "rollover";
    out.push({
      ...base,
      entryId: `${s.id}:${kind}`,
      kind,
      amountUsd: formatUsd(carryOut.negated()),
      at: s.closedAt,
      reference: carries.outOf ? `statement ${carries.outOf.to}` : null,
    });
  }
  return out;
}

export type LedgerQuery = {
  gameId: string;
  batchId?: string;
  recipientPlayerId?: number;
  /** Entries with `at` in [from, to): ISO 8601 instants or Dates. */
  from?: string | Date;
  to?: string | Date;
};

function toMs(value: string | Date | undefined): number | null {
  if (value === undefined) return null;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`not an instant: ${String(value)}`);
  return ms;
}

/**
 * Ledger entries in pages (a large batch never sits in memory whole): statements of approved and paid batches
 * only; drafts and discarded batches have no entries.
 */
export async function* iterateLedgerEntries(
  db: Db,
  params: LedgerQuery & { pageSize?: number },
): AsyncGenerator<LedgerEntry> {
  const fromMs = toMs(params.from);
  const toMsValue = toMs(params.to);
  const approvedAt = new Map<string, string | null>();
  const page: PayoutStatement[] = [];
  const flush = async function* (): AsyncGenerator<LedgerEntry> {
    const carries = await carriesOf(
      db,
      page.map((s) => s.id),
    );
    const returns = new Map<string, PaymentReturnRow[]>();
    for (const r of await listPaymentReturns(db, { gameId: params.gameId, statementIds: page.map((s) => s.id) }))
      returns.set(r.statementId, [...(returns.get(r.statementId) ?? []), r]);
    for (const s of page) {
      const at = approvedAt.get(s.batchId);
      if (!at) continue;
      for (const entry of statementEntries(
        s,
        at,
        {
          into: carries.into.get(s.id) ?? [],
          outOf: carries.outOf.get(s.id) ?? null,
        },
        returns.get(s.id),
      )) {
        const ms = Date.parse(entry.at);
        if (fromMs !== null && ms < fromMs) continue;
        if (toMsValue !== null && ms >= toMsValue) continue;
        yield entry;
      }
    }
    page.length = 0;
  };
  const batches = await listApprovedBatches(db, params);
  for (const b of batches) approvedAt.set(b.id, b.approved_at ? formatInstant(b.approved_at) : null);
  if (batches.length === 0) return;
  const pageSize = params.pageSize ?? 2000;
  for await (const statement of iteratePayoutStatements(db, {
    gameId: params.gameId,
    batchId: params.batchId,
    recipientPlayerId: params.recipientPlayerId,
    pageSize,
  })) {
    if (!approvedAt.has(statement.batchId)) continue;
    page.push(statement);
    if (page.length >= pageSize) yield* flush();
  }
  yield* flush();
}

export async function listLedgerEntries(db: Db, params: LedgerQuery): Promise<LedgerEntry[]> {
  const out: LedgerEntry[] = [];
  for await (const entry of iterateLedgerEntries(db, params)) out.push(entry);
  return out;
}
