import { type Kysely, type RawBuilder, sql } from "kysely";

/**
 * payout_statement.reversed_before_usd: of the reversals the snapshot reports for the recipient, the part another
 * window's approved batch deducted already. The service reports a reversal it knows only from its period row wholly in
 * the window of the period's latest refund, so a later refund brings the part deducted before into a later window
 * again. A statement deducts only the rest: its `reversed_attributed_usd` is what it deducts, and with this column
 * adds up to what the snapshot reports. Statements before it deducted everything reported (0). Frozen once prepared,
 * as the other figures are.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table payout_statement
    add column if not exists reversed_before_usd numeric not null default 0`.execute(db);
  // Re-runnable: the check is put anew.
  await sql`alter table payout_statement drop constraint if exists payout_statement_reversed_before`.execute(db);
  await sql`alter table payout_statement add constraint payout_statement_reversed_before
    check (reversed_before_usd >= 0)`.execute(db);
  await frozen(db, sql`, new.reversed_before_usd`, sql`, old.reversed_before_usd`);
}

export async function down(db: Kysely<any>): Promise<void> {
  await frozen(db, sql``, sql``);
  await sql`alter table payout_statement drop column if exists reversed_before_usd`.execute(db);
}

/**
 * The trigger's function that keeps a statement's figures as prepared (2026_11_23_1600), with `extraNew`/`extraOld`
 * among them: the part deducted before is one.
 */
async function frozen(db: Kysely<any>, extraNew: RawBuilder<unknown>, extraOld: RawBuilder<unknown>): Promise<void> {
  await sql`
    create or replace function payout_statement_figures_frozen() returns trigger language plpgsql as $$
    begin
      if (new.batch_id, new.recipient_player_id, new.gross_attributed_usd, new.reversed_attributed_usd,
          new.net_attributed_usd, new.carried_in_usd, new.available_usd${extraNew})
        is distinct from
         (old.batch_id, old.recipient_player_id, old.gross_attributed_usd, old.reversed_attributed_usd,
          old.net_attributed_usd, old.carried_in_usd, old.available_usd${extraOld}) then
        raise exception 'payout_statement figures are frozen once prepared';
      end if;
      if (new.payable_usd, new.carry_out_usd) is distinct from (old.payable_usd, old.carry_out_usd)
        and not (old.state = 'held' and new.state = 'carried' and new.payable_usd = 0 and new.carry_out_usd =
        old.available_usd) then
        raise exception 'payout_statement figures are frozen once prepared';
      end if;
      return new;
    end $$`.execute(db);
}
