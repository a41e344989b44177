import "server-only";
import { sql } from "kysely";
import type { DbOrTrx, Trx } from "@/db";
import { databaseNowMs, firstValue } from "./scalar";

/** Signed links of a batch issued at or before `revoked_at` are refused. */
export async function revokeBatchLinks(db: DbOrTrx, params: { batchId: string; at: Date; by: string | null }) {
  await db
    .insertInto("statement_link_revocation")
    .values({ batch_id: params.batchId, revoked_at: params.at, revoked_by_email: params.by })
    .onConflict((oc) => oc.column("batch_id").doUpdateSet({ revoked_at: params.at, revoked_by_email: params.by }))
    .execute();
}

export async function getBatchLinkRevocation(db: DbOrTrx, batchId: string): Promise<Date | null> {
  const revocation = db.selectFrom("statement_link_revocation").select("revoked_at").where("batch_id", "=", batchId);
  return firstValue(revocation, "revoked_at");
}

/** The lock of a batch's links: a revocation holds it alone, a send's check of it shares it. */
const LINKS_LOCK = sql.lit("statement-links:");

/** Held by a revocation until its transaction ends: no send is checking the batch's revocation meanwhile. */
export async function lockBatchLinks(trx: Trx, batchId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${LINKS_LOCK} || ${batchId}::uuid::text))`.execute(trx);
}

/**
 * A send's check before it goes out, under the lock of its batch's links shared (so never while a revocation is being
 * written): whether the batch's links were revoked since the send was queued, and the time its link is issued at
 * (the database's clock, read under the lock: a revocation after it takes a later time, and ends that link). No batch
 * for a send that was never queued.
 */
export async function checkSendAgainstRevocation(
  trx: Trx,
  sendId: string,
): Promise<{ batchId: string | null; revoked: boolean; linkIssuedAt: number }> {
  const { rows } = await sql<{ batch_id: string; at: Date }>`select s.batch_id, q.at,
      pg_advisory_xact_lock_shared(hashtext(${LINKS_LOCK} || s.batch_id::text))
    from statement_delivery q join payout_statement s on s.id = q.statement_id
    where q.send_id = ${sendId} and q.status = 'queued' limit 1`.execute(trx);
  const queued = rows[0];
  const revokedAt = queued ? await getBatchLinkRevocation(trx, queued.batch_id) : null;
  return {
    batchId: queued?.batch_id ?? null,
    revoked: queued !== undefined && revokedAt !== null && revokedAt.getTime() >= queued.at.getTime(),
    linkIssuedAt: await databaseNowMs(trx),
  };
}

/** Whether no email of the send's statement was queued after it: only then does its failure make the statement owed. */
export async function isLatestSend(db: DbOrTrx, sendId: string): Promise<boolean> {
  const { rows } = await sql<{ one: number }>`select 1 as one from statement_delivery q
    where q.send_id = ${sendId} and q.status = 'queued'
      and not exists (select 1 from statement_delivery later
        where later.statement_id = q.statement_id and later.status = 'queued' and later.at > q.at)
    limit 1`.execute(db);
  return rows.length > 0;
}

/** The emails of a batch queued and not yet sent, nor failed for good. */
export async function countUnsettledSends(db: DbOrTrx, batchId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(distinct q.send_id) as n from statement_delivery q
      join payout_statement s on s.id = q.statement_id
    where s.batch_id = ${batchId} and q.status = 'queued'
      and not exists (select 1 from statement_delivery d
        where d.send_id = q.send_id and (d.status = 'sent' or (d.status = 'failed' and d.final)))`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Counts one download of a statement through a link: the downloads in the hour from the first of them, this one
 * included (a download after that hour is over starts a new one), and the seconds until that hour is over. The
 * database's clock.
 */
/** Seconds until a count's hour is over, on the database's clock. */
const SECONDS_LEFT = sql<string>`ceil(extract(epoch from since + interval '1 hour' - now()))`.as("seconds_left");

function linkDownloads(row: { downloads: number; seconds_left: string }): { downloads: number; secondsLeft: number } {
  return { downloads: row.downloads, secondsLeft: Math.max(1, Number(row.seconds_left)) };
}

export async function countLinkDownload(
  db: DbOrTrx,
  statementId: string,
): Promise<{ downloads: number; secondsLeft: number }> {
  const over = sql<boolean>`statement_link_download.since <= now() - interval '1 hour'`;
  const row = await db
    .insertInto("statement_link_download")
    .values({ statement_id: statementId, since: sql<Date>`now()`, downloads: 1 })
    .onConflict((oc) =>
      oc.column("statement_id").doUpdateSet({
        since: sql<Date>`case when ${over} then now() else statement_link_download.since end`,
        downloads: sql<number>`case when ${over} then 1 else statement_link_download.downloads + 1 end`,
      }),
    )
    .returning(["downloads", SECONDS_LEFT])
    .executeTakeFirstOrThrow();
  return linkDownloads(row);
}

/** The statement's downloads in its current hour, without counting one (null when none). */
export async function readLinkDownloads(
  db: DbOrTrx,
  statementId: string,
): Promise<{ downloads: number; secondsLeft: number } | null> {
  const row = await db
    .selectFrom("statement_link_download")
    .select(["downloads", SECONDS_LEFT])
    .where("statement_id", "=", statementId)
    .where("since", ">", sql<Date>`now() - interval '1 hour'`)
    .executeTakeFirst();
  return row ? linkDownloads(row) : null;
}

/** Forgets the download counts whose hour is over (the database's clock). */
export async function pruneLinkDownloads(db: DbOrTrx): Promise<number> {
  const result = await db
    .deleteFrom("statement_link_download")
    .where("since", "<=", sql<Date>`now() - interval '1 hour'`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
