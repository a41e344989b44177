import "server-only";
import { type Expression, type Insertable, sql, type Updateable } from "kysely";
import type { DbOrTrx, Trx } from "@/db";
import type { Database, PayoutStatementState } from "@/db/types";
import { anyOf, inChunks } from "./chunks";
import { RECIPIENT_FIGURES, RECIPIENT_HAS_UNAVAILABLE } from "./payouts";
import { reversalDeductedBefore } from "./reversal-deducted";

/** Writes and locked reads of payout statements and their events, for the batch workflow (lib/payouts). */

const LOCKED_COLUMNS = [
  "id",
  "recipient_player_id",
  "state",
  "recipient_flags",
  "payable_usd",
  "available_usd",
  "hold_reason",
  "payment_file_id",
  "state_changed_at",
  "player_name",
] as const;

/** The statements of a batch given by id, in a state, or all of them, locked for a change. */
export async function listStatementsForUpdate(
  trx: Trx,
  params: { batchId: string; which: readonly string[] | { state?: PayoutStatementState } },
) {
  const query = trx.selectFrom("payout_statement").select(LOCKED_COLUMNS).where("batch_id", "=", params.batchId);
  const { which } = params;
  if (!("length" in which)) {
    const inState = which.state === undefined ? query : query.where("state", "=", which.state);
    return inState.orderBy("recipient_player_id").forUpdate().execute();
  }
  // One statement for any number of ids: each row once, however often its id is given, and every lock taken in one
  // order (two large selections locking in chunks could each hold what the other waits for).
  return query.where("id", "=", anyOf(which, "uuid")).orderBy("recipient_player_id").forUpdate().execute();
}

export type LockedStatement = Awaited<ReturnType<typeof listStatementsForUpdate>>[number];

export type StatementStateChange = {
  state: PayoutStatementState;
  changedByEmail: string | null;
  at: Date;
  /** Closes the statement (paid or carried). */
  closes?: boolean;
  holdReason?: string | null;
  /**
   * Pays the statement's payable: the amount paid is never typed. `fileId`: the payment file it was paid from, whose
   * item names the account paid; without one, the profile's account when its method is the payment's.
   */
  payment?: { paidOn: string; method: string; reference: string; fileId?: string | null };
  /** Closes with nothing paid and the whole available balance carried out. */
  carryWhole?: boolean;
  /** Reopens a paid statement (its payment came back): not closed, no payment recorded. */
  reopens?: boolean;
  /** The live payment file it is in (in_payment), or null when it leaves one. */
  paymentFileId?: string | null;
};

/**
 * The account a payment went to, masked, for the statement row being updated: the item of the file it was paid from
 * (the details the file was written with), else (a file made before items kept them, or a payment recorded by hand)
 * the recipient's profile, for a payment by hand only when the profile's method is the payment's. `method` and
 * `fileId` are the payment's, as values or as the columns of the rows an update reads them from.
 */
function paidTo(payment: { method: Expression<unknown>; fileId: Expression<unknown> }) {
  return sql<string | null>`coalesce(
    (select i.account_masked from payment_file_item i
      where i.file_id = ${payment.fileId} and i.statement_id = payout_statement.id),
    (select p.details_masked from payout_profile p
      where p.game_id = payout_statement.game_id and p.player_id = payout_statement.recipient_player_id
        and (${payment.fileId} is not null or p.method = ${payment.method})))`;
}

/** Moves the statements given to a state, only those still in one of `from`. */
export async function setStatementStates(
  trx: Trx,
  params: { ids: readonly string[]; from: readonly PayoutStatementState[]; change: StatementStateChange },
): Promise<void> {
  const set = columnsOf(params.change);
  await inChunks(params.ids, async (ids) => {
    await trx
      .updateTable("payout_statement")
      .set(set as Updateable<Database["payout_statement"]>)
      .where("id", "in", ids)
      .where("state", "in", [...params.from])
      .execute();
  });
}

export type StatementPayment = NonNullable<StatementStateChange["payment"]> & { id: string };

/**
 * Pays the statements given, each with a payment of its own (a provider's transaction id each), only those still in
 * one of `from`: `change` as for setStatementStates, its payment left out. One statement for all of them (a report of
 * 10,000 payments was 10,000 updates).
 */
export async function setStatementPayments(
  trx: Trx,
  params: {
    payments: readonly StatementPayment[];
    from: readonly PayoutStatementState[];
    change: Omit<StatementStateChange, "payment">;
  },
): Promise<void> {
  const set: Record<string, unknown> = {
    ...columnsOf(params.change),
    paid_amount_usd: sql<string>`payable_usd`,
    paid_on: sql`v.paid_on::date`,
    payment_method: sql`v.method`,
    payment_reference: sql`v.reference`,
    paid_to_masked: paidTo({ method: sql`v.method`, fileId: sql`v.file_id` }),
  };
  await inChunks(params.payments, async (chunk) => {
    const column = <K extends keyof StatementPayment>(key: K) => chunk.map((c) => c[key] ?? null);
    await trx
      .updateTable("payout_statement")
      .from(
        sql`(select unnest(${column("id")}::uuid[]) as id, unnest(${column("paidOn")}::text[]) as paid_on,
          unnest(${column("method")}::text[]) as method, unnest(${column("reference")}::text[]) as reference,
          unnest(${column("fileId")}::uuid[]) as file_id)`.as("v"),
      )
      .set(set as Updateable<Database["payout_statement"]>)
      .where(sql<boolean>`payout_statement.id = v.id`)
      .where("payout_statement.state", "in", [...params.from])
      .execute();
  });
}

/** The columns a change of state sets (setStatementStates). */
function columnsOf(change: StatementStateChange): Record<string, unknown> {
  const set: Record<string, unknown> = {
    state: change.state,
    state_changed_at: change.at,
    state_changed_by_email: change.changedByEmail,
  };
  if (change.closes) set.closed_at = change.at;
  if (change.holdReason !== undefined) set.hold_reason = change.holdReason;
  if (change.payment) {
    set.paid_amount_usd = sql<string>`payable_usd`;
    set.paid_on = change.payment.paidOn;
    set.payment_method = change.payment.method;
    set.payment_reference = change.payment.reference;
    const { method, fileId } = change.payment;
    set.paid_to_masked = paidTo({ method: sql`${method}::text`, fileId: sql`${fileId || null}::uuid` });
  }
  if (change.reopens) {
    set.closed_at = null;
    set.paid_amount_usd = null;
    set.paid_on = null;
    set.payment_method = null;
    set.payment_reference = null;
    set.paid_to_masked = null;
  }
  if (change.paymentFileId !== undefined) set.payment_file_id = change.paymentFileId;
  if (change.carryWhole) {
    set.payable_usd = "0";
    set.carry_out_usd = sql<string>`available_usd`;
  }
  return set;
}

export async function insertStatements(trx: Trx, rows: readonly Insertable<Database["payout_statement"]>[]) {
  await inChunks(rows, async (chunk) => {
    await trx.insertInto("payout_statement").values(chunk).execute();
  });
}

export async function insertCarries(trx: Trx, rows: readonly Insertable<Database["payout_carry"]>[]) {
  await inChunks(rows, async (chunk) => {
    await trx.insertInto("payout_carry").values(chunk).execute();
  });
}

export type StatementEventInput = {
  statementId: string;
  batchId: string;
  gameId: string;
  recipient: string;
  kind: string;
  stateAfter: PayoutStatementState;
  detail?: Record<string, unknown>;
};

export async function insertStatementEvents(
  trx: Trx,
  rows: readonly StatementEventInput[],
  actor: { id: string; email: string } | null,
): Promise<void> {
  await inChunks(rows, async (chunk) => {
    await trx
      .insertInto("payout_statement_event")
      .values(
        chunk.map((r) => ({
          statement_id: r.statementId,
          batch_id: r.batchId,
          game_id: r.gameId,
          recipient_player_id: r.recipient,
          kind: r.kind,
          state_after: r.stateAfter,
          actor_id: actor?.id ?? null,
          actor_email: actor?.email ?? null,
          detail: JSON.stringify(r.detail ?? {}),
        })),
      )
      .execute();
  });
}

/**
 * Balances carried out of closed statements of the game and not yet taken by any statement (the primary key of
 * payout_carry makes a second taker fail), oldest window first: a recipient's last one is what was known of them last.
 */
export async function listUntakenCarries(trx: Trx, gameId: string) {
  return (
    trx
      .selectFrom("payout_statement as st")
      .innerJoin("payout_batch as b", "b.id", "st.batch_id")
      .select([
        "st.id",
        "st.recipient_player_id",
        "st.carry_out_usd",
        "st.player_email",
        "st.player_name",
        "st.resolved",
      ])
      // The flags open on a hold when it was carried forward (lib/payouts/batches.ts, carryStatementsForward).
      .select(
        sql<string[] | null>`(select array(select jsonb_array_elements_text(e.detail->'openFlags'))
        from payout_statement_event e where e.statement_id = st.id and e.kind = 'carried_forward'
          and jsonb_typeof(e.detail->'openFlags') = 'array'
        order by e.at desc, e.id desc limit 1)`.as("open_flags"),
      )
      .where("st.game_id", "=", gameId)
      .where("b.status", "<>", "discarded")
      .where("st.state", "in", ["paid", "carried"])
      .where("st.carry_out_usd", "<>", "0")
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("payout_carry as c").select("c.from_statement_id").whereRef("c.from_statement_id", "=", "st.id"),
          ),
        ),
      )
      .orderBy("b.window_end")
      .orderBy("b.prepared_at")
      .orderBy("st.id")
      .execute()
  );
}

/**
 * Whether the recipient (`r`, of a snapshot) has a reversal known only from its period row that a batch of another
 * window of the game deducts too, known the same way, and this one cannot leave out: the service reports such a
 * reversal wholly in the window of the period's latest refund, so a later refund moves the part deducted before into
 * this window. What an approved batch deducted of a reversal known wholly from its period row (one row: its only
 * event is the period row's) is known and left out (REVERSAL_DEDUCTED_BEFORE); a draft's may still change, and of a
 * period whose refunds are partly known from receipts (those stay in their own windows) the part moved is not told.
 */
const REVERSAL_REPORTED_AGAIN = sql<boolean>`exists (select 1 from snapshot_reversal v
  join snapshot s on s.id = v.snapshot_id
  join payout_batch b on b.game_id = s.game_id and b.status <> 'discarded'
    and (b.window_start <> s.window_start or b.window_end <> s.window_end)
  join snapshot_reversal p on p.snapshot_id = b.snapshot_id and p.period_id = v.period_id
  where v.snapshot_id = r.snapshot_id and v.recipient_player_id = r.recipient_player_id
    and v.reversal_basis = 'period_row' and p.reversal_basis = 'period_row'
    and p.recipient_player_id = v.recipient_player_id and p.reversed_attributed_usd <> 0
    and (b.status = 'draft' or v.event_count <> 1 or p.event_count <> 1))`;

const REVERSAL_DEDUCTED_BEFORE = sql<string>`(${reversalDeductedBefore(null)})::text`;

/**
 * The statements of a batch with reversals: the part deducted before each recorded at preparation, beside what the
 * snapshot reports and what approved batches of other windows deducted now (REVERSAL_DEDUCTED_BEFORE): one approved
 * since the batch was prepared makes them differ.
 */
export async function listDeductionsOfBatch(
  trx: Trx,
  p: { batchId: string; snapshotId: string },
): Promise<{ recipient: string; storedUsd: string; reportedUsd: string; beforeNowUsd: string }[]> {
  return trx
    .selectFrom("payout_statement as st")
    .innerJoin("snapshot_recipient as r", (join) =>
      join.on("r.snapshot_id", "=", p.snapshotId).onRef("r.recipient_player_id", "=", "st.recipient_player_id"),
    )
    .select([
      "st.recipient_player_id as recipient",
      sql<string>`st.reversed_before_usd::text`.as("storedUsd"),
      sql<string>`r.reversed_attributed_usd::text`.as("reportedUsd"),
      REVERSAL_DEDUCTED_BEFORE.as("beforeNowUsd"),
    ])
    .where("st.batch_id", "=", p.batchId)
    .where("st.reversal_count", ">", 0)
    .orderBy("st.recipient_player_id")
    .execute();
}

/**
 * The recipients of a snapshot with their figures, whether any of their lines lacks attribution, whether a reversal
 * of theirs is deducted in another window's draft batch too (REVERSAL_REPORTED_AGAIN), and how much of their reversals
 * approved batches of other windows deducted already (REVERSAL_DEDUCTED_BEFORE).
 */
export async function listSnapshotRecipientsForStatements(trx: Trx, snapshotId: string) {
  return trx
    .selectFrom("snapshot_recipient as r")
    .select(RECIPIENT_FIGURES)
    .select(RECIPIENT_HAS_UNAVAILABLE.as("has_unavailable"))
    .select(REVERSAL_REPORTED_AGAIN.as("reversal_reported_again"))
    .select(REVERSAL_DEDUCTED_BEFORE.as("reversed_before_usd"))
    .where("r.snapshot_id", "=", snapshotId)
    .orderBy("r.recipient_player_id")
    .execute();
}

/**
 * How a paid statement's payment was sent, when a payment file sent it: the file's method, the currency and amount of
 * its item and the file's USD→EUR rate (null for USD). Read from the latest payment recorded (its event names the
 * file); null for a payment recorded by hand.
 */
export async function getStatementPaidFrom(
  db: DbOrTrx,
  params: { gameId: string; statementId: string },
): Promise<{ method: string; currency: string; amount: string; eurRate: string | null } | null> {
  const result = await sql<{ method: string; currency: string; amount: string; eurRate: string | null }>`
    with paid as (
      select e.detail->>'fileId' as file_id from payout_statement_event e
      where e.game_id = ${params.gameId} and e.statement_id = ${params.statementId} and e.state_after = 'paid'
      order by e.at desc, e.id desc limit 1)
    select f.method, i.currency, i.amount_currency::text as amount, f.eur_rate::text as "eurRate"
    from paid
    join payment_file_item i on i.file_id = paid.file_id::uuid and i.statement_id = ${params.statementId}
    join payment_file f on f.id = i.file_id and f.game_id = ${params.gameId}`.execute(db);
  return result.rows[0] ?? null;
}

/** The account a paid statement was paid to, masked, as recorded with its payment (setStatementStates). */
export async function getStatementPaidTo(
  db: DbOrTrx,
  params: { gameId: string; statementId: string },
): Promise<string | null> {
  const row = await db
    .selectFrom("payout_statement")
    .select("paid_to_masked")
    .where("game_id", "=", params.gameId)
    .where("id", "=", params.statementId)
    .where("state", "=", "paid")
    .executeTakeFirst();
  return row?.paid_to_masked ?? null;
}
