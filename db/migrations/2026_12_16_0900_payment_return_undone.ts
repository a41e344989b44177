import { type Kysely, sql } from "kysely";

/**
 * payment_return.undone: a payment recorded paid by mistake and undone by hand (the money never left). The row stays a
 * `returned` one, so the statement is owed again as on a return, but nothing came back: it raises no "Payment
 * returned" flag and posts back to clearing, not to returns. Rows before it are returns (false). An earlier release
 * reads an undone row as a return: its journals would post it to returns under another number (`RP-`) than this
 * release's (`UP-`), and a ledger given both would credit the payable twice: the earlier release is stopped first.
 */
export const exclusive = true;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payment_return add column if not exists undone boolean not null default false`.execute(db);
  // Re-runnable: the check is put anew.
  await sql`alter table payment_return drop constraint if exists payment_return_undone_by_hand`.execute(db);
  await sql`alter table payment_return add constraint payment_return_undone_by_hand
    check (not undone or (kind = 'returned' and file_id is null and result_id is null))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table payment_return drop column if exists undone`.execute(db);
}
