import { type Kysely, sql } from "kysely";

/**
 * Statements whose last email failed to send, one row per statement (statement_delivery_failure keeps one per
 * recipient, for the recipient's banner and flag, and a later statement of the same recipient replaced it): the
 * batch's send offers each again and counts it as failed until a send of it is queued after the failure
 * (db/queries/statement-deliveries.ts, `failedToSend`). Filled from the delivery log on the way up.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("statement_send_failure")
    .ifNotExists()
    .addColumn("statement_id", "uuid", (c) => c.primaryKey().references("payout_statement.id").onDelete("cascade"))
    .addColumn("batch_id", "uuid", (c) => c.notNull())
    .addColumn("failed_at", "timestamptz", (c) => c.notNull())
    .execute();
  await sql`create index if not exists statement_send_failure_batch_idx on statement_send_failure (batch_id)`.execute(
    db,
  );
  // Every statement with a final failure and no send queued after it, unless its address was refused for good: also
  // those whose recipient's row a later statement had taken over.
  await sql`insert into statement_send_failure (statement_id, batch_id, failed_at)
    select s.id, s.batch_id, max(d.at) from payout_statement s join statement_delivery d on d.statement_id = s.id
     where d.status = 'failed' and d.final
       and not exists (select 1 from statement_delivery q
                        where q.statement_id = s.id and q.status = 'queued' and q.at > d.at)
       and not exists (select 1 from statement_delivery_failure f where f.statement_id = s.id and f.refused)
     group by s.id, s.batch_id
    on conflict do nothing`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("statement_send_failure").ifExists().execute();
}
