import { type Kysely, sql } from "kysely";

/**
 * Applied with every instance of the earlier release stopped (an earlier release serves payment files without counting
 * the downloads the cancel check reads): only by `desk migrate`, never by a start or another command on a database that
 * has earlier migrations (README, "Deploying").
 */
export const exclusive = true;

/**
 * payment_file.download_count, last_downloaded_at, last_downloaded_by_email: a download is counted on the file's row
 * in the transaction that checks the file is not cancelled, so a cancel (which updates the same row) either comes
 * after it and is told of it, or before it and the download is refused. The audit log keeps every download.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payment_file
    add column if not exists download_count integer not null default 0,
    add column if not exists last_downloaded_at timestamptz,
    add column if not exists last_downloaded_by_email text`.execute(db);
  // Downloads made before: counted from the audit log.
  await sql`update payment_file f set download_count = d.n, last_downloaded_at = d.at,
      last_downloaded_by_email = d.email
    from (select target, count(*)::int as n, max(at) as at,
            (array_agg(actor_email order by at desc))[1] as email
          from audit_log where action = 'payouts.payment_file.download' and outcome = 'succeeded'
          group by target) d
    where d.target = f.id::text`.execute(db);
}
