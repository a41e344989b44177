import { type Kysely, sql } from "kysely";

/**
 * snapshot_line_order_idx: a snapshot's lines by mint order, for the disputes the window and evidence pages show
 * (service_dispute.order_id). Without it every view of a window scanned all of its snapshot's lines as soon as the
 * game had one dispute (46 ms at 100,000 lines, growing with the lines). Lines paid from the wallet carry no
 * order and stay out of the index. A large database may have it built beforehand without blocking pulls (README,
 * "Deploying"); the migration then keeps that one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists snapshot_line_order_idx on snapshot_line (snapshot_id, mint_order_id)
    where mint_order_id is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists snapshot_line_order_idx`.execute(db);
}
