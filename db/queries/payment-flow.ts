import "server-only";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db";
import type { PaymentReturnKind, PayoutStatementState } from "@/db/types";
import { statementsOfBatch } from "./batch-statements";
import { paymentFileItemsOfGame, paymentFilesOfGame } from "./payment-files";
import type { RowOf } from "./row-of";
import { snakeRow } from "./camel-row";
import { dateText } from "./profiles";
import { firstValue } from "./scalar";
import { anyOf, inChunks } from "./chunks";

/**
 * Reads and writes around paying statements through payment files (2026_11_24_1800): the stored file, the items a
 * provider's results name, the payments that came back. The rules live in lib/payments.
 */

export async function getPaymentFile(db: DbOrTrx, p: { gameId: string; fileId: string }) {
  const row = await paymentFilesOfGame(db, p.gameId)
    .select([
      "media_type as mediaType",
      "content_sealed as contentSealed",
      "eur_rate as eurRate",
      "rate_source as rateSource",
      "execution_date as executionDate",
      "created_by_email as createdByEmail",
    ])
    .where("id", "=", p.fileId)
    .executeTakeFirst();
  return row ?? null;
}

export type StoredPaymentFile = NonNullable<Awaited<ReturnType<typeof getPaymentFile>>>;

/** A batch's statements with a payable: recipient, provider reference, files they were in before (to write a file). */
export async function listPayableStatements(db: DbOrTrx, p: { gameId: string; batchId: string }) {
  return statementsOfBatch(db, p)
    .innerJoin("payout_batch as b", "b.id", "st.batch_id")
    .select([
      "st.id",
      "st.recipient_player_id as recipientPlayerId",
      "st.player_name as playerName",
      "st.payable_usd as payableUsd",
      "st.provider_reference as providerReference",
      "st.state",
      "b.window_start as windowStart",
      // The payment files it was put in before (any status): the next is its filing number + 1.
      (eb) =>
        eb
          .selectFrom("payment_file_item as pi")
          .select((c) => c.fn.countAll<string>().as("n"))
          .whereRef("pi.statement_id", "=", "st.id")
          .as("filings"),
    ])
    .where("st.state", "in", ["approved", "returned"])
    .where("st.payable_usd", ">", "0")
    .orderBy("st.recipient_player_id")
    .execute();
}

/**
 * The first `limit` payable statements of the batch whose recipient's profile names details a file can pay (PayPal,
 * Wise or a bank account, not "by hand"), by recipient, with the flags stored on each at preparation.
 */
export async function listFilePayableStatements(
  db: DbOrTrx,
  p: { gameId: string; batchId: string; limit: number },
): Promise<{ recipientPlayerId: number; recipientFlags: string[]; method: string; currency: string }[]> {
  const rows = await filePayable(db, p)
    .select(["st.recipient_player_id", "st.recipient_flags", "pp.method", "pp.currency"])
    .orderBy("st.recipient_player_id")
    .limit(p.limit)
    .execute();
  return rows.map((r) => ({
    recipientPlayerId: Number(r.recipient_player_id),
    recipientFlags: r.recipient_flags,
    method: r.method ?? "",
    currency: r.currency ?? "",
  }));
}

/** The profile methods and currencies of a batch's file-payable statements (each pair once), whatever their flags. */
export async function listFilePayableMethods(
  db: DbOrTrx,
  p: { gameId: string; batchId: string },
): Promise<{ method: string; currency: string }[]> {
  const rows = await filePayable(db, p).select(["pp.method", "pp.currency"]).distinct().execute();
  return rows.map((r) => ({ method: r.method ?? "", currency: r.currency ?? "" }));
}

/** A batch's statements a payment file could pay: approved or returned, payable, with details a file pays. */
function filePayable(db: DbOrTrx, p: { gameId: string; batchId: string }) {
  return (
    statementsOfBatch(db, p)
      .innerJoin("payout_profile as pp", (join) =>
        join.onRef("pp.game_id", "=", "st.game_id").onRef("pp.player_id", "=", "st.recipient_player_id"),
      )
      .where("st.state", "in", ["approved", "returned"])
      .where("st.payable_usd", ">", "0")
      .where("pp.details_sealed", "is not", null)
      .where("pp.method", "in", ["paypal", "wise", "bank_transfer"])
      // Files pay in USD or EUR only (lib/payments/items.ts).
      .where("pp.currency", "in", ["USD", "EUR"])
  );
}

/** The items of a batch's files carrying the given references, newest file first. */
export async function listItemsByReference(
  db: DbOrTrx,
  p: { gameId: string; batchId: string; references: readonly string[] },
) {
  if (p.references.length === 0) return [];
  return paymentFileItemsOfGame(db, p.gameId)
    .innerJoin("payment_file as f", "f.id", "i.file_id")
    .innerJoin("payout_statement as s", "s.id", "i.statement_id")
    .select([
      "i.file_id as fileId",
      "f.status as fileStatus",
      // The provider's result for this item was recorded (paid or rejected) before anything else happened to it.
      "i.settled",
      "f.method",
      "f.created_at as fileCreatedAt",
      dateText("f.execution_date", "executionDate"),
      "s.state as statementState",
      "s.payment_file_id as statementFileId",
      "s.recipient_player_id as recipientPlayerId",
      "s.payment_reference as paymentReference",
      "s.closed_at as paidAt",
      // A payment of the statement recorded as returned by hand (not one undone: it never reached a provider): a
      // provider's report may list that return again.
      (eb) =>
        eb
          .exists(
            eb
              .selectFrom("payment_return as r")
              .select("r.id")
              .whereRef("r.statement_id", "=", "s.id")
              .where("r.kind", "=", "returned")
              .where("r.result_id", "is", null)
              .where("r.undone", "=", false),
          )
          .as("returnedByHand"),
      // The payment recorded on the statement is this item's: a paid result of its file naming that payment, and the
      // statement's latest payment recorded from that file (a payment by hand under the same reference is not).
      (eb) =>
        eb
          .exists(
            eb
              .selectFrom("payment_result as pr")
              .select("pr.id")
              .whereRef("pr.statement_id", "=", "s.id")
              .whereRef("pr.file_id", "=", "i.file_id")
              .where("pr.outcome", "=", "paid")
              .where(sql<boolean>`coalesce(pr.provider_transaction_id, pr.reference) = s.payment_reference`)
              .where(
                sql<boolean>`(select e.detail->>'fileId' from payout_statement_event e
                  where e.statement_id = s.id and e.state_after = 'paid'
                  order by e.at desc, e.id desc limit 1) = i.file_id::text`,
              ),
          )
          .as("paidByThisItem"),
    ])
    .where("f.batch_id", "=", p.batchId)
    .where("i.reference", "=", anyOf(p.references, "text"))
    .orderBy("f.created_at", "desc")
    .execute();
}

export type ItemByReference = RowOf<typeof listItemsByReference>;

/** The results already recorded for the given statements: id, statement, transaction id, outcome and file. */
export async function listRecordedResultKeys(db: DbOrTrx, statementIds: readonly string[]) {
  if (statementIds.length === 0) return [];
  return db
    .selectFrom("payment_result")
    .select([
      "id",
      "statement_id as statementId",
      "provider_transaction_id as transactionId",
      "outcome",
      "file_id as fileId",
    ])
    .where("statement_id", "=", anyOf(statementIds, "uuid"))
    .execute();
}

export async function setStatementsPaymentFile(db: DbOrTrx, p: { fileId: string; statementIds: readonly string[] }) {
  if (p.statementIds.length === 0) return;
  await db
    .updateTable("payout_statement")
    .set({ payment_file_id: p.fileId })
    .where("id", "=", anyOf(p.statementIds, "uuid"))
    .where("state", "=", "in_payment")
    .execute();
}

/** The items of a file the provider has paid or rejected leave the file's open set. */
export async function settleFileItems(db: DbOrTrx, p: { fileId: string; statementIds: readonly string[] }) {
  if (p.statementIds.length === 0) return;
  await db
    .updateTable("payment_file_item")
    .set({ settled: true })
    .where("file_id", "=", p.fileId)
    .where("statement_id", "=", anyOf(p.statementIds, "uuid"))
    .execute();
}

/** Live files of the batch none of whose statements is still in payment become completed. */
export async function completeSettledFiles(db: DbOrTrx, p: { gameId: string; batchId: string }): Promise<number> {
  const result = await sql`
    update payment_file f set status = 'completed'
    where f.game_id = ${p.gameId} and f.batch_id = ${p.batchId} and f.status = 'live'
      and not exists (select 1 from payout_statement s
        where s.payment_file_id = f.id and s.state = 'in_payment')`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** The statements of a file still in payment. */
export async function listFileStatementsInPayment(db: DbOrTrx, p: { fileId: string }): Promise<string[]> {
  const rows = await db
    .selectFrom("payout_statement")
    .select("id")
    .where("payment_file_id", "=", p.fileId)
    .where("state", "=", "in_payment")
    .execute();
  return rows.map((r) => r.id);
}

export type NewPaymentReturn = {
  gameId: string;
  batchId: string;
  statementId: string;
  recipientPlayerId: string;
  kind: PaymentReturnKind;
  amountUsd: string;
  reason: string;
  fileId: string | null;
  resultId: string | null;
  undone?: boolean;
  paidAt: Date | null;
  paidOn: string | null;
  paymentMethod: string | null;
  paymentReference: string | null;
  paidById: string | null;
  actorId: string | null;
  actorEmail: string | null;
  via: string;
  /** When: the transition's time, on the database's clock (lib/payouts/transition.ts). */
  at: Date;
};

export async function insertPaymentReturns(db: DbOrTrx, rows: readonly NewPaymentReturn[]): Promise<void> {
  if (rows.length === 0) return;
  await inChunks(rows, (chunk) => db.insertInto("payment_return").values(chunk.map(snakeRow)).execute());
}

export type PaymentReturnRow = {
  id: string;
  statementId: string;
  recipientPlayerId: number;
  kind: PaymentReturnKind;
  amountUsd: string;
  reason: string;
  undone: boolean;
  paidAt: Date | null;
  paidOn: string | null;
  paymentMethod: string | null;
  paymentReference: string | null;
  at: Date;
  actorEmail: string | null;
};

/** Payments that came back, of the given statements or of a game (one recipient when given), oldest first. */
export async function listPaymentReturns(
  db: DbOrTrx,
  p: { gameId: string; statementIds?: readonly string[]; recipientPlayerId?: number; batchId?: string },
): Promise<PaymentReturnRow[]> {
  if (p.statementIds && p.statementIds.length === 0) return [];
  const rows = await db
    .selectFrom("payment_return")
    .select([
      "id",
      "statement_id",
      "recipient_player_id",
      "kind",
      "amount_usd",
      "reason",
      "undone",
      "paid_at",
      sql<string | null>`to_char(paid_on, 'YYYY-MM-DD')`.as("paid_on"),
      "payment_method",
      "payment_reference",
      "at",
      "actor_email",
    ])
    .where("game_id", "=", p.gameId)
    .$if(p.statementIds !== undefined, (q) => q.where("statement_id", "=", anyOf(p.statementIds ?? [], "uuid")))
    .$if(p.batchId !== undefined, (q) => q.where("batch_id", "=", p.batchId as string))
    .$if(p.recipientPlayerId !== undefined, (q) => q.where("recipient_player_id", "=", String(p.recipientPlayerId)))
    .orderBy("at")
    .orderBy("id")
    .execute();
  return rows.map((r) => ({
    id: String(r.id),
    statementId: r.statement_id,
    recipientPlayerId: Number(r.recipient_player_id),
    kind: r.kind,
    amountUsd: r.amount_usd,
    reason: r.reason,
    undone: r.undone,
    paidAt: r.paid_at,
    paidOn: r.paid_on,
    paymentMethod: r.payment_method,
    paymentReference: r.payment_reference,
    at: r.at,
    actorEmail: r.actor_email,
  }));
}

/** Whether a payment of the batch came back after it was paid (a `payment_returned` entry; not one undone). */
export async function batchHasReturnedPayment(db: DbOrTrx, p: { gameId: string; batchId: string }): Promise<boolean> {
  const returned = db
    .selectFrom("payment_return")
    .where("paid_at", "is not", null)
    .where((eb) => eb.and({ game_id: p.gameId, batch_id: p.batchId, kind: "returned", undone: false }));
  return (await firstValue(returned.select("id").limit(1), "id")) !== null;
}

/** Who recorded a statement's current payment (the newest "paid" event), if anyone. */
export async function getPaidBy(db: DbOrTrx, statementId: string): Promise<{ actorId: string | null } | null> {
  const row = await db
    .selectFrom("payout_statement_event")
    .select("actor_id")
    .where("statement_id", "=", statementId)
    .where("kind", "=", "paid")
    .orderBy("at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? { actorId: row.actor_id } : null;
}

/** A statement of the game with its payment fields, locked. */
export async function getStatementPayment(db: DbOrTrx, p: { gameId: string; statementId: string }) {
  return db
    .selectFrom("payout_statement")
    .select([
      "id",
      "batch_id",
      "recipient_player_id",
      "state",
      "payable_usd",
      "paid_amount_usd",
      sql<string | null>`to_char(paid_on, 'YYYY-MM-DD')`.as("paid_on"),
      "payment_method",
      "payment_reference",
      "closed_at",
    ])
    .where("game_id", "=", p.gameId)
    .where("id", "=", p.statementId)
    .executeTakeFirst();
}

export type PaymentStateRow = {
  id: string;
  recipient_player_id: string;
  state: PayoutStatementState;
  payment_file_id: string | null;
  payable_usd: string;
  available_usd: string;
  live_items: number;
  live_file_id: string | null;
  live_amount_usd: string | null;
  returned_usd: string;
  returns: number;
};

/** Statements of live batches touched by payment files or returns, with what the files and returns say of them. */
export async function listPaymentStates(
  db: DbOrTrx,
  p: { gameId: string; recipientPlayerId?: number },
): Promise<PaymentStateRow[]> {
  const result = await sql<PaymentStateRow>`
    select s.id::text as id, s.recipient_player_id::text as recipient_player_id, s.state,
      s.payment_file_id::text as payment_file_id, s.payable_usd::text as payable_usd,
      s.available_usd::text as available_usd,
      coalesce(li.n, 0)::int as live_items, li.file_id::text as live_file_id, li.amount_usd::text as live_amount_usd,
      coalesce(rt.usd, 0)::text as returned_usd, coalesce(rt.n, 0)::int as returns
    from payout_statement s
    join payout_batch b on b.id = s.batch_id and b.status <> 'discarded'
    left join lateral (select count(*) as n, min(i.file_id::text) as file_id, min(i.amount_usd) as amount_usd
      from payment_file_item i where i.statement_id = s.id and i.file_status = 'live' and not i.settled) li on true
    left join lateral (select count(*) as n, sum(r.amount_usd) as usd
      from payment_return r where r.statement_id = s.id and r.kind = 'returned') rt on true
    where s.game_id = ${p.gameId}
      ${p.recipientPlayerId === undefined ? sql`` : sql`and s.recipient_player_id = ${p.recipientPlayerId}`}
      and (s.state in ('in_payment', 'returned') or s.payment_file_id is not null or li.n > 0 or rt.n > 0)`.execute(db);
  return result.rows;
}
