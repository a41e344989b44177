import { type Kysely, sql } from "kysely";

/**
 * A pull writes a snapshot's pages and lines while it reads, in the publishing transaction, and the `snapshot` row
 * last. A part of a split window read again (its figures changed) voids the pages written for it: that transaction
 * deletes them, so that no page's text need be held in memory to write the kept ones again.
 *
 * So a row of these tables may be deleted while its snapshot has no `snapshot` row, that is before publication (the
 * keys to `snapshot` are checked at commit, so no such row outlives its transaction and no other session sees one).
 * Every other UPDATE, DELETE and TRUNCATE is still refused: a published snapshot never changes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function snapshot_immutable() returns trigger language plpgsql as $$
    begin
      -- Nested: the row of another table (the snapshot itself) has no snapshot_id to look at.
      if tg_op = 'DELETE' and tg_table_name in ('snapshot_page', 'snapshot_recipient', 'snapshot_line',
        'snapshot_reversal', 'snapshot_refund_event') then
        if not exists (select 1 from snapshot where id = old.snapshot_id) then
          return old;
        end if;
      end if;
      raise exception '% is immutable: a published snapshot never changes', tg_table_name;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function snapshot_immutable() returns trigger language plpgsql as $$
    begin
      raise exception '% is immutable: a published snapshot never changes', tg_table_name;
    end $$`.execute(db);
}
