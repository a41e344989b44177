import "server-only";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db";
import type { NormalisedPaymentResult, PaymentFileMethod } from "@/db/types";
import type { RowOf } from "./row-of";
import { anyOf } from "./chunks";

/**
 * Payment files and their results (db/migrations/2026_11_24_1400_payment_files.ts). Plain writes and reads: the
 * state transitions around them (which statements may be filed, what a result does to a statement) belong to
 * lib/. Call the writes inside the caller's transaction.
 */

const CHUNK = 2000;

export type NewPaymentFile = {
  /** Chosen by the caller when the content is sealed to the file's id. */
  id?: string;
  gameId: string;
  batchId: string;
  method: PaymentFileMethod;
  fileName: string;
  part: number;
  partCount: number;
  currency: string;
  eurRate: string | null;
  rateSource: string | null;
  /** "2026-11-25" */
  executionDate: string | null;
  sha256: string;
  createdById: string;
  createdByEmail: string;
  totalUsd: string;
  totalAmount: string;
  /** The file as written, sealed (2026_11_24_1800), and its media type. */
  contentSealed?: string | null;
  mediaType?: string;
  items: {
    statementId: string;
    /** The reference sent for it in this file. */
    reference: string;
    /** The statement's own (its first filing's); the item's reference when not given. */
    statementReference?: string;
    amountUsd: string;
    amountCurrency: string;
    currency: string;
    /** The recipient's details the item was written with, masked. */
    accountMasked?: string | null;
  }[];
};

/** Refused because some statements already sit in a live file (or are not statements of this batch). */
export class PaymentFileConflictError extends Error {
  constructor(
    message: string,
    readonly statementIds: string[],
  ) {
    super(message);
  }
}

/**
 * Inserts a file and its items, and records each statement's provider reference (kept if already set to the
 * same value; a different one is refused). Throws PaymentFileConflictError when a statement is already in a live
 * file or does not belong to the batch, or when another statement of the game was sent under one of the references;
 * the unique index payment_file_item_one_live (open items only) is the final guard.
 */
export async function insertPaymentFile(db: DbOrTrx, file: NewPaymentFile): Promise<{ id: string }> {
  const ids = file.items.map((item) => item.statementId);
  const references = file.items.map((item) => item.statementReference ?? item.reference);
  const sent = file.items.map((item) => item.reference);
  const foreign = await sql<{ id: string }>`
    select v.id::text as id from unnest(${ids}::uuid[]) as v(id)
    where not exists (select 1 from payout_statement s
      where s.id = v.id and s.batch_id = ${file.batchId} and s.game_id = ${file.gameId})`.execute(db);
  if (foreign.rows.length > 0) {
    throw new PaymentFileConflictError(
      "statements not in this batch",
      foreign.rows.map((r) => r.id),
    );
  }
  const live = await db
    .selectFrom("payment_file_item")
    .select("statement_id")
    .where("file_status", "=", "live")
    .where("settled", "=", false)
    .where("statement_id", "=", anyOf(ids, "uuid"))
    .execute();
  if (live.length > 0) {
    throw new PaymentFileConflictError(
      "statements already in a live payment file",
      live.map((r) => r.statement_id),
    );
  }
  // A reference names one statement of the game in every file (a code of 60 bits, 50 in a Wise USD row: a clash is
  // refused, never merged).
  const taken = await sql<{ id: string }>`
    select distinct v.id::text as id from unnest(${ids}::uuid[], ${sent}::text[]) as v(id, reference)
    join payment_file_item i
      on i.game_id = ${file.gameId} and i.reference = v.reference and i.statement_id <> v.id`.execute(db);
  if (taken.rows.length > 0) {
    throw new PaymentFileConflictError(
      "another statement was sent under the same reference",
      taken.rows.map((r) => r.id),
    );
  }
  const row = await db
    .insertInto("payment_file")
    .values({
      ...(file.id ? { id: file.id } : {}),
      content_sealed: file.contentSealed ?? null,
      media_type: file.mediaType,
      game_id: file.gameId,
      batch_id: file.batchId,
      method: file.method,
      file_name: file.fileName,
      part: file.part,
      part_count: file.partCount,
      currency: file.currency,
      eur_rate: file.eurRate,
      rate_source: file.rateSource,
      execution_date: file.executionDate,
      sha256: file.sha256,
      created_by_id: file.createdById,
      created_by_email: file.createdByEmail,
      row_count: file.items.length,
      total_usd: file.totalUsd,
      total_amount: file.totalAmount,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  for (let i = 0; i < file.items.length; i += CHUNK) {
    await db
      .insertInto("payment_file_item")
      .values(
        file.items.slice(i, i + CHUNK).map((item) => ({
          file_id: row.id,
          file_status: "live" as const,
          game_id: file.gameId,
          statement_id: item.statementId,
          reference: item.reference,
          amount_usd: item.amountUsd,
          amount_currency: item.amountCurrency,
          currency: item.currency,
          account_masked: item.accountMasked ?? null,
        })),
      )
      .execute();
  }
  await sql`
    update payout_statement s set provider_reference = v.reference
    from unnest(${ids}::uuid[], ${references}::text[]) as v(id, reference)
    where s.id = v.id and s.game_id = ${file.gameId} and s.provider_reference is null`.execute(db);
  const differing = await sql<{ id: string }>`
    select s.id::text as id from payout_statement s
    join unnest(${ids}::uuid[], ${references}::text[]) as v(id, reference) on s.id = v.id
    where s.provider_reference <> v.reference`.execute(db);
  if (differing.rows.length > 0) {
    throw new PaymentFileConflictError(
      "statements already carry another reference",
      differing.rows.map((r) => r.id),
    );
  }
  return row;
}

/** Cancels a live file (its items leave the live set with it). False when the file was not live. */
/** Cancels a live file; returns its downloads as the cancel found them, or null when it was not live. */
export async function cancelPaymentFile(
  db: DbOrTrx,
  params: { gameId: string; fileId: string; reason: string; byEmail: string },
): Promise<{ downloads: number; lastDownloadedAt: Date | null; lastDownloadedBy: string | null } | null> {
  const row = await db
    .updateTable("payment_file")
    .set({
      status: "cancelled",
      cancelled_at: new Date(),
      cancel_reason: params.reason,
      cancelled_by_email: params.byEmail,
    })
    .where("id", "=", params.fileId)
    .where("game_id", "=", params.gameId)
    .where("status", "=", "live")
    .returning([
      "download_count as downloads",
      "last_downloaded_at as lastDownloadedAt",
      "last_downloaded_by_email as lastDownloadedBy",
    ])
    .executeTakeFirst();
  return row ?? null;
}

/** A file's status as it is now, with who cancelled it and when (read under the batch's lock by a cancel refused). */
export async function getPaymentFileStatus(db: DbOrTrx, params: { gameId: string; fileId: string }) {
  const row = await db
    .selectFrom("payment_file")
    .select(["status", "cancelled_at as cancelledAt", "cancelled_by_email as cancelledBy"])
    .where("id", "=", params.fileId)
    .where("game_id", "=", params.gameId)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Counts a download of a file that is not cancelled, on its row (which a cancel updates too, so the two never
 * overlap); false when the file is cancelled or not the game's.
 */
export async function countPaymentFileDownload(
  db: DbOrTrx,
  params: { gameId: string; fileId: string; byEmail: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable("payment_file")
    .set({
      download_count: sql<number>`download_count + 1`,
      last_downloaded_at: sql<Date>`clock_timestamp()`,
      last_downloaded_by_email: params.byEmail,
    })
    .where("id", "=", params.fileId)
    .where("game_id", "=", params.gameId)
    .where("status", "<>", "cancelled")
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The columns of a file every listing shows (db/queries/payment-flow.ts adds what a download needs). */
export const PAYMENT_FILE_COLUMNS = [
  "id",
  "batch_id as batchId",
  "method",
  "file_name as fileName",
  "part",
  "part_count as partCount",
  "currency",
  "status",
  "row_count as rowCount",
  "total_usd as totalUsd",
  "total_amount as totalAmount",
  "sha256",
  "created_at as createdAt",
  "download_count as downloads",
  "last_downloaded_at as lastDownloadedAt",
  "last_downloaded_by_email as lastDownloadedBy",
] as const;

/** The game's payment files with the listing's columns, before any other filter. */
export function paymentFilesOfGame(db: DbOrTrx, gameId: string) {
  return db.selectFrom("payment_file").select(PAYMENT_FILE_COLUMNS).where("game_id", "=", gameId);
}

/** An item `i` of a file still open that the provider reported pending from it: it holds the payment. */
const heldAtProvider = sql<boolean>`not i.settled and exists (select 1 from payment_result r
  where r.file_id = i.file_id and r.statement_id = i.statement_id and r.outcome = 'pending')`;

/**
 * A batch's payment files, each with how many of its items the provider settled (a file partly settled was uploaded:
 * never to be uploaded again) and how many open ones it reported pending (it holds them: the file is cancelled only
 * once the person confirms it will not pay them).
 */
export async function listPaymentFiles(db: DbOrTrx, params: { gameId: string; batchId: string }) {
  return paymentFilesOfGame(db, params.gameId)
    .select([
      sql<number>`(select count(*)::int from payment_file_item i
        where i.file_id = payment_file.id and i.settled)`.as("settledItems"),
      sql<number>`(select count(*)::int from payment_file_item i
        where i.file_id = payment_file.id and ${heldAtProvider})`.as("heldAtProvider"),
    ])
    .where("batch_id", "=", params.batchId)
    .orderBy("created_at")
    .orderBy("currency")
    .orderBy("part")
    .execute();
}

export type PaymentFileRow = RowOf<typeof listPaymentFiles>;

/** The game's payment file items (as `i`) with their columns, before any other filter. */
export function paymentFileItemsOfGame(db: DbOrTrx, gameId: string) {
  return db
    .selectFrom("payment_file_item as i")
    .select([
      "i.statement_id as statementId",
      "i.reference",
      "i.amount_usd as amountUsd",
      "i.amount_currency as amountCurrency",
      "i.currency",
    ])
    .where("i.game_id", "=", gameId);
}

export async function listPaymentFileItems(db: DbOrTrx, params: { gameId: string; fileId: string }) {
  return paymentFileItemsOfGame(db, params.gameId)
    .where("i.file_id", "=", params.fileId)
    .orderBy("i.reference")
    .execute();
}

export type PaymentFileItemRow = RowOf<typeof listPaymentFileItems>;

export type ResultToRecord = NormalisedPaymentResult;

/**
 * Records results read from a provider's file against the items of `fileId`, matched by reference. Idempotent:
 * a result already recorded for the statement (same provider transaction id and outcome) is skipped, so
 * importing the same file twice changes nothing. Returns how many were new, already known, and the references
 * that match no item of the file.
 */
export async function recordPaymentResults(
  db: DbOrTrx,
  params: { gameId: string; fileId: string; sourceSha256: string; results: readonly ResultToRecord[] },
): Promise<{ inserted: number; alreadyRecorded: number; unmatched: string[] }> {
  const items = await listPaymentFileItems(db, params);
  const byReference = new Map(items.map((item) => [item.reference, item.statementId]));
  const unmatched: string[] = [];
  const rows = [];
  for (const result of params.results) {
    const statementId = byReference.get(result.reference);
    if (!statementId) {
      unmatched.push(result.reference);
      continue;
    }
    rows.push({
      file_id: params.fileId,
      statement_id: statementId,
      reference: result.reference,
      outcome: result.outcome,
      provider_transaction_id: result.providerTransactionId,
      amount: result.amount,
      currency: result.currency,
      fee: result.fee,
      reason: result.reason,
      raw_status: result.rawStatus,
      source_sha256: params.sourceSha256,
    });
  }
  let inserted = 0;
  for (let i = 0; i < rows.length; i += CHUNK) {
    const done = await db
      .insertInto("payment_result")
      .values(rows.slice(i, i + CHUNK))
      // payment_result_once, a unique index (2026_12_01_0900): once per statement, outcome and transaction id or file.
      .onConflict((oc) => oc.doNothing())
      .returning("id")
      .execute();
    inserted += done.length;
  }
  return { inserted, alreadyRecorded: rows.length - inserted, unmatched };
}

/** How many of a file's payments the provider's results settled (paid or rejected). */
export async function countSettledItems(db: DbOrTrx, params: { fileId: string }): Promise<number> {
  const row = await db
    .selectFrom("payment_file_item")
    .select((eb) => eb.fn.countAll<string>().as("settled"))
    .where("file_id", "=", params.fileId)
    .where("settled", "=", true)
    .executeTakeFirstOrThrow();
  return Number(row.settled);
}

/** How many of the given statements' items of this file the provider holds (as the files' listing counts them). */
export async function countHeldAtProvider(
  db: DbOrTrx,
  params: { fileId: string; statementIds: readonly string[] },
): Promise<number> {
  if (params.statementIds.length === 0) return 0;
  const row = await db
    .selectFrom("payment_file_item as i")
    .select((eb) => eb.fn.countAll<string>().as("held"))
    .where("i.file_id", "=", params.fileId)
    .where("i.statement_id", "=", anyOf(params.statementIds, "uuid"))
    .where(heldAtProvider)
    .executeTakeFirstOrThrow();
  return Number(row.held);
}

export async function listPaymentResults(
  db: DbOrTrx,
  params: { gameId: string; fileId: string },
): Promise<(ResultToRecord & { statementId: string; importedAt: Date })[]> {
  return db
    .selectFrom("payment_result as r")
    .innerJoin("payment_file as f", "f.id", "r.file_id")
    .select([
      "r.statement_id as statementId",
      "r.reference",
      "r.outcome",
      "r.provider_transaction_id as providerTransactionId",
      "r.amount",
      "r.currency",
      "r.fee",
      "r.reason",
      "r.raw_status as rawStatus",
      "r.imported_at as importedAt",
    ])
    .where("f.game_id", "=", params.gameId)
    .where("r.file_id", "=", params.fileId)
    .orderBy("r.id")
    .execute();
}
