import "server-only";
import type { Db } from "@/db";
import type { PayoutBatchStatus, PayoutStatementState } from "@/db/types";
import { formatUsd, money } from "@/lib/money";
import { formatInstant } from "@/lib/time";

/**
 * The recipient ledger, read-only: what the payout exports, the recipient page and the invariant check read.
 *
 * Every statement of an approved (or paid) batch turns into entries on the recipient's account of "revenue share
 * payable". `amountUsd` is signed: positive raises what Payout Desk owes the recipient, negative lowers it.
 *
 * | kind      | amount                 | when (`at`)                          | exists when                             |
 * |-----------|------------------------|--------------------------------------|-----------------------------------------|
 * | accrual   | + gross attributed     | the batch's approval                 | gross ≠ 0                               |
 * | reversal  | − reversed attributed  | the batch's approval                 | reversed ≠ 0                            |
 * | carry_in  | + carried in           | the batch's approval                 | carried in ≠ 0 (one entry per source)   |
 * | payment   | − amount paid          | when the payment was recorded        | the statement is paid                   |
 * | carry_out | − carried out (< 0)    | when the statement closed            | closed with a negative balance          |
 * | rollover  | − carried out (> 0)    | when the statement closed            | closed with a payable under the minimum,|
 * |           |                        |                                      | or a held balance carried forward       |
 *
 * The entries of a closed statement (paid or carried) add up to zero; a statement still approved-unpaid or held
 * leaves its balance open, which is what the liability view reports. A carry_out/rollover of one statement is the
 * carry_in of exactly one later statement (same amount, opposite sign), so across a recipient's closed statements
 * the carries cancel and "paid + carried = sum of net attributed" (lib/payouts/invariant.ts).
 *
 * Order: batch (window start), recipient id, then accrual, reversal, carry_in, payment, carry_out/rollover.
 */

export type LedgerEntryKind = "accrual" | "reversal" | "carry_in" | "carry_out" | "rollover" | "payment";

export const LEDGER_ENTRY_KINDS: readonly LedgerEntryKind[] = [
  "accrual",
  "reversal",
  "carry_in",
  "carry_out",
  "rollover",
  "payment",
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
  /** The payment date as recorded ("2026-04-03"), payments only. */
  paidOn: string | null;
  /** Payment method, payments only. */
  paymentMethod: string | null;
};

export type PayoutStatement = {
  id: string;
  batchId: string;
  batchStatus: PayoutBatchStatus;
  snapshotId: string;
  snapshotVersion: number;
  windowStart: string;
  windowEnd: string;
  recipientPlayerId: number;
  playerName: string | null;
  playerEmail: string | null;
  resolved: boolean;
  /** False for a recipient with no activity in the window, on the statement only to receive a carried balance. */
  inSnapshot: boolean;
  renewalCount: number;
  subscriptionCount: number;
  reversalCount: number;
  grossAttributedUsd: string;
  reversedAttributedUsd: string;
  netAttributedUsd: string;
  carriedInUsd: string;
  /** net + carried in. */
  availableUsd: string;
  /** What to pay: available when at least the minimum payout, else 0.00. */
  payableUsd: string;
  /** available − payable: a negative balance or a payable under the minimum, taken into a later statement. */
  carryOutUsd: string;
  /** The minimum payout in force when the batch was prepared. */
  minPayoutUsd: string;
  state: PayoutStatementState;
  holdReason: string | null;
  stateChangedAt: string;
  stateChangedBy: string | null;
  paidAmountUsd: string | null;
  paidOn: string | null;
  paymentMethod: string | null;
  paymentReference: string | null;
  closedAt: string | null;
  recipientFlags: string[];
};

export type PayoutBatchSummary = {
  id: string;
  gameId: string;
  windowStart: string;
  windowEnd: string;
  snapshotId: string;
  snapshotVersion: number;
  status: PayoutBatchStatus;
  minPayoutUsd: string;
  twoPersonRule: boolean;
  preparedById: string;
  preparedByEmail: string;
  preparedAt: string;
  approvedById: string | null;
  approvedByEmail: string | null;
  approvedAt: string | null;
  paidAt: string | null;
  discardedAt: string | null;
  discardReason: string | null;
};

function iso(value: Date | null): string | null {
  return value ? formatInstant(value) : null;
}

function dateOnly(value: Date | null): string | null {
  return value ? formatInstant(value).slice(0, 10) : null;
}

function batchQuery(db: Db, gameId: string) {
  return db.selectFrom("payout_batch").selectAll().where("game_id", "=", gameId);
}

type BatchRow = Awaited<ReturnType<ReturnType<typeof batchQuery>["executeTakeFirstOrThrow"]>>;

export function toBatchSummary(r: BatchRow): PayoutBatchSummary {
  return {
    id: r.id,
    gameId: r.game_id,
    windowStart: formatInstant(r.window_start),
    windowEnd: formatInstant(r.window_end),
    snapshotId: r.snapshot_id,
    snapshotVersion: r.snapshot_version,
    status: r.status,
    minPayoutUsd: formatUsd(r.min_payout_usd),
    twoPersonRule: r.two_person_rule,
    preparedById: r.prepared_by_id,
    preparedByEmail: r.prepared_by_email,
    preparedAt: formatInstant(r.prepared_at),
    approvedById: r.approved_by_id,
    approvedByEmail: r.approved_by_email,
    approvedAt: iso(r.approved_at),
    paidAt: iso(r.paid_at),
    discardedAt: iso(r.discarded_at),
    discardReason: r.discard_reason,
  };
}

export async function getPayoutBatch(
  db: Db,
  params: { gameId: string; batchId: string },
): Promise<PayoutBatchSummary | null> {
  const row = await batchQuery(db, params.gameId).where("id", "=", params.batchId).executeTakeFirst();
  return row ? toBatchSummary(row) : null;
}

/** Batches of a game, newest window first; discarded ones only when asked. Filter by the snapshot they were built on. */
export async function listPayoutBatches(
  db: Db,
  params: { gameId: string; snapshotId?: string; includeDiscarded?: boolean },
): Promise<PayoutBatchSummary[]> {
  let query = batchQuery(db, params.gameId);
  if (params.snapshotId) query = query.where("snapshot_id", "=", params.snapshotId);
  if (!params.includeDiscarded) query = query.where("status", "<>", "discarded");
  const rows = await query.orderBy("window_start", "desc").orderBy("prepared_at", "desc").execute();
  return rows.map(toBatchSummary);
}

function statementQuery(db: Db, gameId: string) {
  return db
    .selectFrom("payout_statement as st")
    .innerJoin("payout_batch as b", "b.id", "st.batch_id")
    .selectAll("st")
    .select([
      "b.status as batch_status",
      "b.snapshot_id",
      "b.snapshot_version",
      "b.window_start",
      "b.window_end",
      "b.min_payout_usd",
      "b.approved_at as batch_approved_at",
    ])
    .where("st.game_id", "=", gameId)
    .where("b.game_id", "=", gameId);
}

type StatementRow = Awaited<ReturnType<ReturnType<typeof statementQuery>["executeTakeFirstOrThrow"]>>;

export function toStatement(r: StatementRow): PayoutStatement {
  return {
    id: r.id,
    batchId: r.batch_id,
    batchStatus: r.batch_status,
    snapshotId: r.snapshot_id,
    snapshotVersion: r.snapshot_version,
    windowStart: formatInstant(r.window_start),
    windowEnd: formatInstant(r.window_end),
    recipientPlayerId: Number(r.recipient_player_id),
    playerName: r.player_name,
    playerEmail: r.player_email,
    resolved: r.resolved,
    inSnapshot: r.in_snapshot,
    renewalCount: r.renewal_count,
    subscriptionCount: r.subscription_count,
    reversalCount: r.reversal_count,
    grossAttributedUsd: formatUsd(r.gross_attributed_usd),
    reversedAttributedUsd: formatUsd(r.reversed_attributed_usd),
    netAttributedUsd: formatUsd(r.net_attributed_usd),
    carriedInUsd: formatUsd(r.carried_in_usd),
    availableUsd: formatUsd(r.available_usd),
    payableUsd: formatUsd(r.payable_usd),
    carryOutUsd: formatUsd(r.carry_out_usd),
    minPayoutUsd: formatUsd(r.min_payout_usd),
    state: r.state,
    holdReason: r.hold_reason,
    stateChangedAt: formatInstant(r.state_changed_at),
    stateChangedBy: r.state_changed_by_email,
    paidAmountUsd: r.paid_amount_usd === null ? null : formatUsd(r.paid_amount_usd),
    paidOn: dateOnly(r.paid_on),
    paymentMethod: r.payment_method,
    paymentReference: r.payment_reference,
    closedAt: iso(r.closed_at),
    recipientFlags: r.recipient_flags,
  };
}

/**
 * Every statement of one batch, by recipient id. Use `iteratePayoutStatements` to read a large batch in pages of
 * `pageSize` without holding it all.
 */
export async function listPayoutStatements(
  db: Db,
  params: { gameId: string; batchId: string },
): Promise<PayoutStatement[]> {
  const out: PayoutStatement[] = [];
  for await (const statement of iteratePayoutStatements(db, params)) out.push(statement);
  return out;
}

export async function* iteratePayoutStatements(
  db: Db,
  params: { gameId: string; batchId?: string; recipientPlayerId?: number; pageSize?: number },
): AsyncGenerator<PayoutStatement> {
  const pageSize = Math.min(Math.max(params.pageSize ?? 2000, 1), 10_000);
  let after: { windowStart: Date; batchId: string; recipient: string } | null = null;
  for (;;) {
    let query = statementQuery(db, params.gameId);
    if (params.batchId) query = query.where("st.batch_id", "=", params.batchId);
    if (params.recipientPlayerId !== undefined)
      query = query.where("st.recipient_player_id", "=", String(params.recipientPlayerId));
    if (after) {
      const a = after;
      query = query.where((eb) =>
        eb.or([
          eb("b.window_start", ">", a.windowStart),
          eb.and([eb("b.window_start", "=", a.windowStart), eb("st.batch_id", ">", a.batchId)]),
          eb.and([
            eb("b.window_start", "=", a.windowStart),
            eb("st.batch_id", "=", a.batchId),
            eb("st.recipient_player_id", ">", a.recipient),
          ]),
        ]),
      );
    }
    const rows = await query
      .orderBy("b.window_start")
      .orderBy("st.batch_id")
      .orderBy("st.recipient_player_id")
      .limit(pageSize)
      .execute();
    for (const row of rows) yield toStatement(row);
    const last = rows.at(-1);
    if (!last || rows.length < pageSize) return;
    after = { windowStart: last.window_start, batchId: last.batch_id, recipient: last.recipient_player_id };
  }
}

type CarryLink = { from: string; to: string; amount: string };

async function carriesOf(
  db: Db,
  statementIds: string[],
): Promise<{ into: Map<string, CarryLink[]>; outOf: Map<string, CarryLink> }> {
  const into = new Map<string, CarryLink[]>();
  const outOf = new Map<string, CarryLink>();
  if (statementIds.length === 0) return { into, outOf };
  const rows = await db
    .selectFrom("payout_carry")
    .select(["from_statement_id", "to_statement_id", "amount_usd"])
    .where((eb) => eb.or([eb("to_statement_id", "in", statementIds), eb("from_statement_id", "in", statementIds)]))
    .execute();
  const ids = new Set(statementIds);
  for (const r of rows) {
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
  if (s.state === "paid" && s.paidAmountUsd !== null && s.closedAt) {
    out.push({
      ...base,
      entryId: `${s.id}:payment`,
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
    for (const s of page) {
      const at = approvedAt.get(s.batchId);
      if (!at) continue;
      for (const entry of statementEntries(s, at, {
        into: carries.into.get(s.id) ?? [],
        outOf: carries.outOf.get(s.id) ?? null,
      })) {
        const ms = Date.parse(entry.at);
        if (fromMs !== null && ms < fromMs) continue;
        if (toMsValue !== null && ms >= toMsValue) continue;
        yield entry;
      }
    }
    page.length = 0;
  };
  const batches = await db
    .selectFrom("payout_batch")
    .select(["id", "approved_at", "status"])
    .where("game_id", "=", params.gameId)
    .where("status", "in", ["approved", "paid"])
    .$if(params.batchId !== undefined, (qb) => qb.where("id", "=", params.batchId as string))
    .execute();
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
