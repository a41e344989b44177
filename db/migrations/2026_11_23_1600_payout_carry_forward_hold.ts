import { type Kysely, sql } from "kysely";

/**
 * A held statement of an approved (or paid) batch can be closed by carrying its whole balance forward into the
 * recipient's next statement: the one change of figures allowed after preparation, and only that one (held to
 * carried, nothing payable, the whole available balance carried out). Every other figure stays frozen.
 */
const FROZEN = sql`(new.batch_id, new.recipient_player_id, new.gross_attributed_usd, new.reversed_attributed_usd,
          new.net_attributed_usd, new.carried_in_usd, new.available_usd)
        is distinct from
         (old.batch_id, old.recipient_player_id, old.gross_attributed_usd, old.reversed_attributed_usd,
          old.net_attributed_usd, old.carried_in_usd, old.available_usd)`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function payout_statement_figures_frozen() returns trigger language plpgsql as $$
    begin
      if ${FROZEN} then
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

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function payout_statement_figures_frozen() returns trigger language plpgsql as $$
    begin
      if (new.batch_id, new.recipient_player_id, new.gross_attributed_usd, new.reversed_attributed_usd,
          new.net_attributed_usd, new.carried_in_usd, new.available_usd, new.payable_usd, new.carry_out_usd)
        is distinct from
         (old.batch_id, old.recipient_player_id, old.gross_attributed_usd, old.reversed_attributed_usd,
          old.net_attributed_usd, old.carried_in_usd, old.available_usd, old.payable_usd, old.carry_out_usd) then
        raise exception 'payout_statement figures are frozen once prepared';
      end if;
      return new;
    end $$`.execute(db);
}
