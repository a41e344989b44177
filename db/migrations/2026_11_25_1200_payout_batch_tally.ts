import { type Kysely, sql } from "kysely";

/**
 * payout_batch_tally: per batch and statement state, how many statements, their payable total, how many have
 * something payable and how many carry a flag, kept by statement-level triggers in the transaction that changes the
 * statements. The window page shows these on every request; counting 100,000 statements each time cost more than the
 * rest of the page together.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table payout_batch_tally (
    batch_id uuid not null references payout_batch (id),
    state text not null,
    statements bigint not null,
    payable_usd numeric not null,
    payable_statements bigint not null,
    flagged bigint not null,
    primary key (batch_id, state)
  )`.execute(db);
  // Rows leave their (batch, state) from the old images and join one from the new images; tallies are locked in
  // (batch, state) order so that two transactions changing the same batch never wait on each other in a circle.
  await sql`create function payout_batch_tally_apply() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        with gone as (
          select batch_id, state, count(*) as n, coalesce(sum(payable_usd), 0) as payable,
            count(*) filter (where payable_usd <> 0) as payable_n,
            count(*) filter (where jsonb_array_length(recipient_flags) > 0) as flagged
          from old_rows group by batch_id, state
        ), locked as (
          select t.batch_id, t.state from payout_batch_tally t join gone using (batch_id, state)
          order by t.batch_id, t.state for update of t
        )
        update payout_batch_tally t
          set statements = t.statements - gone.n, payable_usd = t.payable_usd - gone.payable,
            payable_statements = t.payable_statements - gone.payable_n, flagged = t.flagged - gone.flagged
          from gone join locked using (batch_id, state)
          where t.batch_id = gone.batch_id and t.state = gone.state;
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        insert into payout_batch_tally as t (batch_id, state, statements, payable_usd, payable_statements, flagged)
          select batch_id, state, count(*), coalesce(sum(payable_usd), 0), count(*) filter (where payable_usd <> 0),
            count(*) filter (where jsonb_array_length(recipient_flags) > 0)
          from new_rows group by batch_id, state order by batch_id, state
          on conflict (batch_id, state) do update
            set statements = t.statements + excluded.statements, payable_usd = t.payable_usd + excluded.payable_usd,
              payable_statements = t.payable_statements + excluded.payable_statements,
              flagged = t.flagged + excluded.flagged;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger payout_batch_tally_insert after insert on payout_statement
    referencing new table as new_rows for each statement execute function payout_batch_tally_apply()`.execute(db);
  await sql`create trigger payout_batch_tally_update after update on payout_statement
    referencing old table as old_rows new table as new_rows
    for each statement execute function payout_batch_tally_apply()`.execute(db);
  await sql`create trigger payout_batch_tally_delete after delete on payout_statement
    referencing old table as old_rows for each statement execute function payout_batch_tally_apply()`.execute(db);
  await sql`insert into payout_batch_tally (batch_id, state, statements, payable_usd, payable_statements, flagged)
    select batch_id, state, count(*), coalesce(sum(payable_usd), 0), count(*) filter (where payable_usd <> 0),
      count(*) filter (where jsonb_array_length(recipient_flags) > 0)
    from payout_statement group by batch_id, state`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger payout_batch_tally_delete on payout_statement`.execute(db);
  await sql`drop trigger payout_batch_tally_update on payout_statement`.execute(db);
  await sql`drop trigger payout_batch_tally_insert on payout_statement`.execute(db);
  await sql`drop function payout_batch_tally_apply()`.execute(db);
  await sql`drop table payout_batch_tally`.execute(db);
}
