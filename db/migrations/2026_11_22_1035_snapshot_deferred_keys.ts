import { type Kysely, sql } from "kysely";

/**
 * Snapshot rows are written while the pages are read and the snapshot row itself last, in one transaction, so the
 * keys from the row tables to `snapshot` are checked at commit. Databases created before that change get the same
 * deferred keys here; on the others this finds them deferred already and changes nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    do $$
    declare
      key record;
    begin
      for key in
        select c.conname, t.relname
        from pg_constraint c
        join pg_class t on t.oid = c.conrelid
        where c.contype = 'f'
          and c.confrelid = 'snapshot'::regclass
          and t.relname in ('snapshot_recipient', 'snapshot_line', 'snapshot_reversal', 'snapshot_refund_event',
          'snapshot_page')
          and not c.condeferred
      loop
        execute format('alter table %I alter constraint %I deferrable initially deferred', key.relname, key.conname);
      end loop;
    end $$`.execute(db);
}

export async function down(): Promise<void> {
  // Deferred keys are what the code needs; nothing to undo.
}
