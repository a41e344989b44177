import { type Kysely, sql } from "kysely";

/**
 * Payouts: a batch per game and window, built on one snapshot version, holding one statement per recipient.
 *
 * - A statement's figures (net attributed, carried in, payable, carried out) are computed once, when the batch is
 *   prepared, and never recomputed; approving the batch freezes them to the snapshot version it was built on.
 * - A carry (a negative net, or a payable under the minimum) leaves a closed statement and is consumed by exactly one
 *   later statement: `payout_carry.from_statement_id` is the primary key.
 * - Every change of a statement's state is an event (append-only): the liability view replays them "as of" a date.
 * - Flag overrides are kept with their written reason.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function payout_statement_event_append_only() returns trigger language plpgsql as $$
    begin
      raise exception '% rows are never updated or deleted', tg_table_name;
    end $$`.execute(db);

  await db.schema
    .createTable("payout_batch")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("window_start", "timestamptz", (c) => c.notNull())
    .addColumn("window_end", "timestamptz", (c) => c.notNull())
    .addColumn("snapshot_id", "uuid", (c) => c.notNull().references("snapshot.id"))
    .addColumn("snapshot_version", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('draft', 'approved', 'paid', 'discarded')`))
    .addColumn("min_payout_usd", "numeric", (c) => c.notNull().check(sql`min_payout_usd >= 0`))
    .addColumn("two_person_rule", "boolean", (c) => c.notNull())
    .addColumn("prepared_by_id", "text", (c) => c.notNull())
    .addColumn("prepared_by_email", "text", (c) => c.notNull())
    .addColumn("prepared_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn("approved_by_id", "text")
    .addColumn("approved_by_email", "text")
    .addColumn("approved_at", "timestamptz")
    .addColumn("paid_at", "timestamptz")
    .addColumn("discarded_by_email", "text")
    .addColumn("discarded_at", "timestamptz")
    .addColumn("discard_reason", "text")
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addCheckConstraint("payout_batch_window_check", sql`window_end > window_start`)
    .execute();
  // One live batch per window; overlapping windows are refused in code under a per-game lock (lib/payouts/batches.ts).
  await sql`create unique index payout_batch_live_window_uq on payout_batch (game_id, window_start, window_end)
    where status <> 'discarded'`.execute(db);
  await db.schema
    .createIndex("payout_batch_game_idx")
    .on("payout_batch")
    .columns(["game_id", "window_start"])
    .execute();

  await db.schema
    .createTable("payout_statement")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("batch_id", "uuid", (c) => c.notNull().references("payout_batch.id"))
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("recipient_player_id", "bigint", (c) => c.notNull())
    .addColumn("in_snapshot", "boolean", (c) => c.notNull())
    .addColumn("resolved", "boolean", (c) => c.notNull())
    .addColumn("player_email", "text")
    .addColumn("player_name", "text")
    .addColumn("renewal_count", "integer", (c) => c.notNull())
    .addColumn("subscription_count", "integer", (c) => c.notNull())
    .addColumn("reversal_count", "integer", (c) => c.notNull())
    .addColumn("gross_attributed_usd", "numeric", (c) => c.notNull())
    .addColumn("reversed_attributed_usd", "numeric", (c) => c.notNull())
    .addColumn("net_attributed_usd", "numeric", (c) => c.notNull())
    .addColumn("carried_in_usd", "numeric", (c) => c.notNull())
    .addColumn("available_usd", "numeric", (c) => c.notNull())
    .addColumn("payable_usd", "numeric", (c) => c.notNull().check(sql`payable_usd >= 0`))
    .addColumn("carry_out_usd", "numeric", (c) => c.notNull())
    .addColumn("recipient_flags", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("state", "text", (c) =>
      c.notNull().check(sql`state in ('draft', 'approved', 'held', 'paid', 'carried')`),
    )
    .addColumn("hold_reason", "text")
    .addColumn("state_changed_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn("state_changed_by_email", "text")
    .addColumn("paid_amount_usd", "numeric")
    .addColumn("paid_on", "date")
    .addColumn("payment_method", "text")
    .addColumn("payment_reference", "text")
    .addColumn("closed_at", "timestamptz")
    // "available = net + carried in; payable + carried out = available": a statement always adds up.
    .addCheckConstraint(
      "payout_statement_adds_up",
      sql`available_usd = net_attributed_usd + carried_in_usd
      and payable_usd + carry_out_usd = available_usd and net_attributed_usd = gross_attributed_usd -
      reversed_attributed_usd`,
    )
    .addCheckConstraint(
      "payout_statement_paid_check",
      sql`(state = 'paid') = (paid_amount_usd is not null)
      and (state <> 'paid' or (paid_amount_usd = payable_usd and paid_on is not null and payment_reference is not
      null))`,
    )
    .addCheckConstraint("payout_statement_held_check", sql`state <> 'held' or hold_reason is not null`)
    .addUniqueConstraint("payout_statement_recipient_uq", ["batch_id", "recipient_player_id"])
    .execute();
  // The payout table sorts these over tens of thousands of statements of one batch.
  for (const column of [
    "payable_usd",
    "carried_in_usd",
    "net_attributed_usd",
    "gross_attributed_usd",
    "reversed_attributed_usd",
    "renewal_count",
    "subscription_count",
  ]) {
    await sql`create index ${sql.raw(`payout_statement_${column}_idx`)} on payout_statement
      (batch_id, ${sql.ref(column)} desc, recipient_player_id)`.execute(db);
  }
  await sql`create index payout_statement_email_idx on payout_statement (batch_id, lower(player_email)
      text_pattern_ops)`.execute(db);
  await sql`create index payout_statement_name_idx on payout_statement (batch_id, lower(player_name)
      text_pattern_ops)`.execute(db);
  await sql`create index payout_statement_state_idx on payout_statement (batch_id, state, recipient_player_id)`.execute(
    db,
  );
  await sql`create index payout_statement_recipient_idx on payout_statement (game_id, recipient_player_id)`.execute(db);

  // Figures are computed once; only the state and payment fields of a statement ever change.
  await sql`
    create function payout_statement_figures_frozen() returns trigger language plpgsql as $$
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
  await sql`create trigger payout_statement_figures_frozen before update on payout_statement
    for each row execute function payout_statement_figures_frozen()`.execute(db);
  await sql`create trigger payout_statement_no_delete before delete on payout_statement
    for each row execute function payout_statement_event_append_only()`.execute(db);

  await db.schema
    .createTable("payout_carry")
    .addColumn("from_statement_id", "uuid", (c) => c.primaryKey().references("payout_statement.id"))
    .addColumn("to_statement_id", "uuid", (c) => c.notNull().references("payout_statement.id"))
    .addColumn("amount_usd", "numeric", (c) => c.notNull())
    .addColumn("linked_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addCheckConstraint("payout_carry_not_self", sql`from_statement_id <> to_statement_id`)
    .execute();
  await db.schema.createIndex("payout_carry_to_idx").on("payout_carry").column("to_statement_id").execute();

  await db.schema
    .createTable("payout_flag_override")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("batch_id", "uuid", (c) => c.notNull().references("payout_batch.id"))
    .addColumn("game_id", "text", (c) => c.notNull())
    // Null for a flag of the whole window (drift, stale snapshot, spend_order_not_found).
    .addColumn("recipient_player_id", "bigint")
    .addColumn("flag", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) =>
      c.notNull().check(sql`char_length(btrim(reason)) >= 10 and char_length(reason) <= 1000`),
    )
    .addColumn("actor_id", "text", (c) => c.notNull())
    .addColumn("actor_email", "text", (c) => c.notNull())
    .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await sql`create unique index payout_flag_override_uq on payout_flag_override
    (batch_id, coalesce(recipient_player_id, -1), flag)`.execute(db);

  await db.schema
    .createTable("payout_statement_event")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("statement_id", "uuid", (c) => c.notNull().references("payout_statement.id"))
    .addColumn("batch_id", "uuid", (c) => c.notNull())
    .addColumn("game_id", "text", (c) => c.notNull())
    .addColumn("recipient_player_id", "bigint", (c) => c.notNull())
    .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("state_after", "text", (c) => c.notNull())
    .addColumn("actor_id", "text")
    .addColumn("actor_email", "text")
    .addColumn("detail", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await sql`create index payout_statement_event_statement_idx on payout_statement_event (statement_id, at, id)`.execute(
    db,
  );
  await sql`create index payout_statement_event_recipient_idx on payout_statement_event (game_id, recipient_player_id,
      at)`.execute(db);
  await sql`create trigger payout_statement_event_no_update before update or delete on payout_statement_event
    for each row execute function payout_statement_event_append_only()`.execute(db);

  // Snapshot lines carrying an attribution reason, per recipient (the "unavailable attribution" flag).
  await sql`create index payout_snapshot_line_reason_idx on snapshot_line (snapshot_id, recipient_player_id)
    where attribution_unavailable_reason is not null`.execute(db);
  // "was the recipient paid for this period": lines by period across snapshots.
  await sql`create index payout_snapshot_line_period_idx on snapshot_line (period_id, snapshot_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists payout_snapshot_line_period_idx`.execute(db);
  await sql`drop index if exists payout_snapshot_line_reason_idx`.execute(db);
  for (const table of [
    "payout_statement_event",
    "payout_flag_override",
    "payout_carry",
    "payout_statement",
    "payout_batch",
  ]) {
    await db.schema.dropTable(table).ifExists().cascade().execute();
  }
  await sql`drop function if exists payout_statement_event_append_only()`.execute(db);
  await sql`drop function if exists payout_statement_figures_frozen()`.execute(db);
}
