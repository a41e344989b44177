import { type Kysely, sql } from "kysely";

/**
 * Window snapshots: a pull (the work, its progress and its outcome) publishes one immutable snapshot per success.
 * Published tables refuse UPDATE and DELETE (a trigger, like the audit log): a snapshot finance paid from can never
 * change under it. Staleness and drift are facts recorded beside a snapshot, never edits of it.
 */

const PUBLISHED = [
  "snapshot",
  "snapshot_recipient",
  "snapshot_line",
  "snapshot_reversal",
  "snapshot_refund_event",
  "snapshot_page",
  "snapshot_sub_window",
  "snapshot_drift",
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("snapshot_pull")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("window_start", "timestamptz", (c) => c.notNull())
    .addColumn("window_end", "timestamptz", (c) => c.notNull())
    .addColumn("status", "text", (c) =>
      c.notNull().check(sql`status in ('queued', 'running', 'retrying', 'complete', 'failed')`),
    )
    .addColumn("via", "text", (c) => c.notNull())
    .addColumn("requested_by_id", "text")
    .addColumn("requested_by_email", "text")
    .addColumn("requested_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("started_at", "timestamptz")
    .addColumn("finished_at", "timestamptz")
    .addColumn("heartbeat_at", "timestamptz")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("job_id", "text")
    .addColumn("snapshot_id", "uuid")
    .addColumn("phase", "text", (c) => c.notNull().defaultTo("queued"))
    .addColumn("pages_fetched", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("pages_estimated", "integer")
    .addColumn("recipients_fetched", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("recipients_total", "integer")
    .addColumn("lines_fetched", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("reversals_fetched", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("requests", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("rate_limited", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("retries", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("sub_windows", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("eta_at", "timestamptz")
    .addColumn("error_code", "text")
    .addColumn("error_message", "text")
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("snapshot_pull_window_check", sql`window_end > window_start`)
    .execute();
  await db.schema
    .createIndex("snapshot_pull_game_idx")
    .on("snapshot_pull")
    .columns(["game_id", "requested_at desc"])
    .execute();
  // One pull per game and window at a time, enforced by the database whoever asks (app, CLI, recovery).
  await sql`create unique index snapshot_pull_one_active_idx on snapshot_pull (game_id, window_start, window_end)
    where status in ('queued', 'running', 'retrying')`.execute(db);

  await db.schema
    .createTable("snapshot")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("window_start", "timestamptz", (c) => c.notNull())
    .addColumn("window_end", "timestamptz", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("pull_id", "uuid", (c) => c.notNull().unique().references("snapshot_pull.id"))
    .addColumn("taken_by_email", "text")
    .addColumn("published_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("fetch_started_at", "timestamptz", (c) => c.notNull())
    .addColumn("fetch_finished_at", "timestamptz", (c) => c.notNull())
    .addColumn("service_generated_at", "timestamptz", (c) => c.notNull())
    .addColumn("window_closed", "boolean", (c) => c.notNull())
    .addColumn("built_from", "text", (c) => c.notNull().check(sql`built_from in ('single', 'split')`))
    .addColumn("page_count", "integer", (c) => c.notNull())
    .addColumn("request_count", "integer", (c) => c.notNull())
    .addColumn("rate_limited", "integer", (c) => c.notNull())
    .addColumn("retries", "integer", (c) => c.notNull())
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("sub_window_count", "integer", (c) => c.notNull())
    .addColumn("line_count", "integer", (c) => c.notNull())
    .addColumn("reversal_count", "integer", (c) => c.notNull())
    .addColumn("refund_event_count", "integer", (c) => c.notNull())
    // Totals of the window (the service's, or merged over sub-windows).
    .addColumn("renewals_settled", "integer", (c) => c.notNull())
    .addColumn("settled_gross_usd", "numeric", (c) => c.notNull())
    .addColumn("invo_fee_usd", "numeric", (c) => c.notNull())
    .addColumn("partner_revenue_settled_usd", "numeric", (c) => c.notNull())
    .addColumn("partner_revenue_reversed_usd", "numeric", (c) => c.notNull())
    .addColumn("partner_revenue_usd", "numeric", (c) => c.notNull())
    .addColumn("renewals_with_attribution", "integer", (c) => c.notNull())
    .addColumn("renewals_without_attribution", "integer", (c) => c.notNull())
    .addColumn("unattributed_reasons", "jsonb", (c) => c.notNull())
    .addColumn("gross_attributed_usd", "numeric", (c) => c.notNull())
    .addColumn("reversed_attributed_usd", "numeric", (c) => c.notNull())
    .addColumn("net_attributed_usd", "numeric", (c) => c.notNull())
    .addColumn("renewals_settled_then_fully_reversed", "integer", (c) => c.notNull())
    .addColumn("refund_events_in_window", "integer", (c) => c.notNull())
    .addColumn("reversals_without_receipts", "integer", (c) => c.notNull())
    .addColumn("recipient_count", "integer", (c) => c.notNull())
    .addColumn("report", "jsonb", (c) => c.notNull())
    .addColumn("attribution_notice", "jsonb", (c) => c.notNull())
    .addColumn("checks", "jsonb", (c) => c.notNull())
    .addColumn("build_notes", "jsonb", (c) => c.notNull())
    .addColumn("compared_to_snapshot_id", "uuid", (c) => c.references("snapshot.id"))
    .addColumn("drift_status", "text", (c) =>
      c.notNull().check(sql`drift_status in ('first_version', 'not_comparable', 'reproduced', 'drift')`),
    )
    .addColumn("drift_count", "integer", (c) => c.notNull().defaultTo(0))
    .addCheckConstraint("snapshot_window_check", sql`window_end > window_start`)
    .addUniqueConstraint("snapshot_version_unique", ["game_id", "window_start", "window_end", "version"])
    .execute();
  await db.schema
    .createIndex("snapshot_game_published_idx")
    .on("snapshot")
    .columns(["game_id", "published_at desc"])
    .execute();

  await db.schema
    .createTable("snapshot_recipient")
    .addColumn("snapshot_id", "uuid", (c) => c.notNull())
    .addColumn("recipient_player_id", "bigint", (c) => c.notNull())
    .addColumn("service_rank", "integer", (c) => c.notNull())
    .addColumn("resolved", "boolean", (c) => c.notNull())
    .addColumn("player_email", "text")
    .addColumn("player_name", "text")
    .addColumn("identity_id", "text")
    .addColumn("renewal_count", "integer", (c) => c.notNull())
    .addColumn("subscription_count", "integer", (c) => c.notNull())
    .addColumn("reversal_count", "integer", (c) => c.notNull())
    .addColumn("gross_attributed_usd", "numeric", (c) => c.notNull())
    .addColumn("reversed_attributed_usd", "numeric", (c) => c.notNull())
    .addColumn("net_attributed_usd", "numeric", (c) => c.notNull())
    .addColumn("first_paid_at", "timestamptz")
    .addColumn("last_paid_at", "timestamptz")
    .addPrimaryKeyConstraint("snapshot_recipient_pk", ["snapshot_id", "recipient_player_id"])
    // Deferred: rows are written while the pages are read, the snapshot row itself last, all in one transaction.
    .addForeignKeyConstraint("snapshot_recipient_snapshot_fk", ["snapshot_id"], "snapshot", ["id"], (fk) =>
      fk.deferrable().initiallyDeferred(),
    )
    .execute();
  // Sorted, filtered and paginated payout tables over tens of thousands of recipients run on these indexes.
  for (const column of ["net_attributed_usd", "gross_attributed_usd", "reversed_attributed_usd", "renewal_count"]) {
    await sql`create index ${sql.raw(`snapshot_recipient_${column}_idx`)} on snapshot_recipient
      (snapshot_id, ${sql.ref(column)} desc, recipient_player_id)`.execute(db);
  }
  await sql`create index snapshot_recipient_rank_idx on snapshot_recipient (snapshot_id, service_rank)`.execute(db);
  await sql`create index snapshot_recipient_email_idx on snapshot_recipient
    (snapshot_id, lower(player_email) text_pattern_ops)`.execute(db);
  await sql`create index snapshot_recipient_name_idx on snapshot_recipient
    (snapshot_id, lower(player_name) text_pattern_ops)`.execute(db);
  await sql`create index snapshot_recipient_last_paid_idx on snapshot_recipient
    (snapshot_id, last_paid_at desc nulls last, recipient_player_id)`.execute(db);

  await db.schema
    .createTable("snapshot_line")
    .addColumn("snapshot_id", "uuid", (c) => c.notNull())
    .addColumn("period_id", "bigint", (c) => c.notNull())
    .addColumn("recipient_player_id", "bigint", (c) => c.notNull())
    .addColumn("subscription_id", "text", (c) => c.notNull())
    .addColumn("period_seq", "integer", (c) => c.notNull())
    .addColumn("item_id", "text", (c) => c.notNull())
    .addColumn("item_name", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("period_start", "timestamptz", (c) => c.notNull())
    .addColumn("period_end", "timestamptz", (c) => c.notNull())
    .addColumn("paid_at", "timestamptz")
    .addColumn("amount_usd", "numeric", (c) => c.notNull())
    .addColumn("invo_fee_usd", "numeric")
    .addColumn("partner_revenue_usd", "numeric")
    .addColumn("partner_revenue_settled_usd", "numeric")
    .addColumn("partner_revenue_reversed_usd", "numeric")
    .addColumn("partner_leg_reversed", "boolean", (c) => c.notNull())
    .addColumn("percent_at_renewal", "numeric")
    .addColumn("base_usd", "numeric")
    .addColumn("attributed_amount_usd", "numeric")
    .addColumn("attribution_unavailable_reason", "text")
    .addColumn("transaction_id", "text")
    .addColumn("mint_order_id", "text")
    .addColumn("funding", "jsonb")
    .addColumn("refund", "jsonb")
    .addColumn("reconciliation", "jsonb")
    .addPrimaryKeyConstraint("snapshot_line_pk", ["snapshot_id", "period_id"])
    // Deferred: rows are written while the pages are read, the snapshot row itself last, all in one transaction.
    .addForeignKeyConstraint("snapshot_line_snapshot_fk", ["snapshot_id"], "snapshot", ["id"], (fk) =>
      fk.deferrable().initiallyDeferred(),
    )
    .execute();
  await sql`create index snapshot_line_recipient_idx on snapshot_line
    (snapshot_id, recipient_player_id, paid_at, period_id)`.execute(db);
  await sql`create index snapshot_line_subscription_idx on snapshot_line (snapshot_id, subscription_id,
      period_seq)`.execute(db);

  await db.schema
    .createTable("snapshot_reversal")
    .addColumn("snapshot_id", "uuid", (c) => c.notNull())
    .addColumn("period_id", "bigint", (c) => c.notNull())
    .addColumn("recipient_player_id", "bigint", (c) => c.notNull())
    .addColumn("subscription_id", "text", (c) => c.notNull())
    .addColumn("period_seq", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("paid_at", "timestamptz")
    .addColumn("settled_in_this_window", "boolean", (c) => c.notNull())
    .addColumn("amount_usd", "numeric", (c) => c.notNull())
    .addColumn("originally_attributed_usd", "numeric", (c) => c.notNull())
    .addColumn("refunded_to_date_usd", "numeric", (c) => c.notNull())
    .addColumn("latest_refund_at", "timestamptz")
    .addColumn("reversed_attributed_usd", "numeric", (c) => c.notNull())
    .addColumn("partner_revenue_reversed_usd", "numeric", (c) => c.notNull())
    .addColumn("reversal_basis", "text", (c) => c.notNull())
    .addColumn("nets_to_zero_in_window", "boolean", (c) => c.notNull())
    .addColumn("note", "text")
    .addColumn("event_count", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("snapshot_reversal_pk", ["snapshot_id", "period_id"])
    // Deferred: rows are written while the pages are read, the snapshot row itself last, all in one transaction.
    .addForeignKeyConstraint("snapshot_reversal_snapshot_fk", ["snapshot_id"], "snapshot", ["id"], (fk) =>
      fk.deferrable().initiallyDeferred(),
    )
    .execute();
  await sql`create index snapshot_reversal_recipient_idx on snapshot_reversal
    (snapshot_id, recipient_player_id, latest_refund_at, period_id)`.execute(db);

  await db.schema
    .createTable("snapshot_refund_event")
    .addColumn("snapshot_id", "uuid", (c) => c.notNull())
    .addColumn("period_id", "bigint", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("refunded_at", "timestamptz", (c) => c.notNull())
    .addColumn("refunded_amount_usd", "numeric", (c) => c.notNull())
    .addColumn("cumulative_refunded_before_usd", "numeric", (c) => c.notNull())
    .addColumn("cumulative_refunded_after_usd", "numeric", (c) => c.notNull())
    .addColumn("reversed_attributed_usd", "numeric", (c) => c.notNull())
    .addColumn("partner_revenue_reversed_usd", "numeric", (c) => c.notNull())
    .addColumn("partner_revenue_reversal_basis", "text", (c) => c.notNull())
    .addColumn("is_full_refund", "boolean", (c) => c.notNull())
    .addPrimaryKeyConstraint("snapshot_refund_event_pk", ["snapshot_id", "period_id", "seq"])
    // Deferred: rows are written while the pages are read, the snapshot row itself last, all in one transaction.
    .addForeignKeyConstraint("snapshot_refund_event_snapshot_fk", ["snapshot_id"], "snapshot", ["id"], (fk) =>
      fk.deferrable().initiallyDeferred(),
    )
    .execute();

  await db.schema
    .createTable("snapshot_page")
    .addColumn("snapshot_id", "uuid", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("window_start", "timestamptz", (c) => c.notNull())
    .addColumn("window_end", "timestamptz", (c) => c.notNull())
    .addColumn("recipient_player_id", "bigint")
    .addColumn("page_offset", "integer", (c) => c.notNull())
    .addColumn("page_limit", "integer", (c) => c.notNull())
    .addColumn("fetched_at", "timestamptz", (c) => c.notNull())
    // The body exactly as the service sent it (text, not jsonb, so nothing is normalised away).
    .addColumn("body", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("snapshot_page_pk", ["snapshot_id", "seq"])
    .addForeignKeyConstraint("snapshot_page_snapshot_fk", ["snapshot_id"], "snapshot", ["id"], (fk) =>
      fk.deferrable().initiallyDeferred(),
    )
    .execute();

  await db.schema
    .createTable("snapshot_sub_window")
    .addColumn("snapshot_id", "uuid", (c) => c.notNull().references("snapshot.id"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("scope", "text", (c) => c.notNull().check(sql`scope in ('window', 'recipient')`))
    .addColumn("recipient_player_id", "bigint")
    .addColumn("window_start", "timestamptz", (c) => c.notNull())
    .addColumn("window_end", "timestamptz", (c) => c.notNull())
    .addColumn("depth", "integer", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("pages", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("snapshot_sub_window_pk", ["snapshot_id", "seq"])
    .execute();

  await db.schema
    .createTable("snapshot_drift")
    .addColumn("snapshot_id", "uuid", (c) => c.notNull().references("snapshot.id"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("previous_snapshot_id", "uuid", (c) => c.notNull().references("snapshot.id"))
    .addColumn("severity", "text", (c) => c.notNull().check(sql`severity in ('drift', 'notice')`))
    .addColumn("entity", "text", (c) => c.notNull())
    .addColumn("entity_key", "text", (c) => c.notNull())
    .addColumn("field", "text", (c) => c.notNull())
    .addColumn("previous_value", "text")
    .addColumn("current_value", "text")
    .addPrimaryKeyConstraint("snapshot_drift_pk", ["snapshot_id", "seq"])
    .execute();

  await db.schema
    .createTable("snapshot_stale_mark")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("instant", "timestamptz", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("detail", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("marked_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await db.schema
    .createIndex("snapshot_stale_mark_game_idx")
    .on("snapshot_stale_mark")
    .columns(["game_id", "instant", "marked_at"])
    .execute();

  // Drill-down caches: every fetch is kept (evidence cites the version it showed); reads take the newest.
  await db.schema
    .createTable("service_period_detail")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("period_id", "bigint", (c) => c.notNull())
    .addColumn("subscription_id", "text", (c) => c.notNull())
    .addColumn("fetched_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn("invalidated_at", "timestamptz")
    .addColumn("body", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("service_period_detail_idx")
    .on("service_period_detail")
    .columns(["game_id", "period_id", "fetched_at desc"])
    .execute();
  await db.schema
    .createIndex("service_period_detail_subscription_idx")
    .on("service_period_detail")
    .columns(["game_id", "subscription_id"])
    .execute();

  await db.schema
    .createTable("service_subscription_attribution")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("game_id", "text", (c) => c.notNull().references("game.id"))
    .addColumn("subscription_id", "text", (c) => c.notNull())
    .addColumn("fetched_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn("invalidated_at", "timestamptz")
    .addColumn("page_count", "integer", (c) => c.notNull())
    .addColumn("body", "jsonb", (c) => c.notNull())
    .addColumn("pages", "jsonb", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("service_subscription_attribution_idx")
    .on("service_subscription_attribution")
    .columns(["game_id", "subscription_id", "fetched_at desc"])
    .execute();

  await sql`
    create function snapshot_immutable() returns trigger language plpgsql as $$
    begin
      raise exception '% is immutable: a published snapshot never changes', tg_table_name;
    end $$`.execute(db);
  for (const table of PUBLISHED) {
    await sql`create trigger ${sql.raw(`${table}_immutable`)} before update or delete on ${sql.table(table)}
      for each row execute function snapshot_immutable()`.execute(db);
    await sql`create trigger ${sql.raw(`${table}_no_truncate`)} before truncate on ${sql.table(table)}
      for each statement execute function snapshot_immutable()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "service_subscription_attribution",
    "service_period_detail",
    "snapshot_stale_mark",
    ...[...PUBLISHED].reverse(),
    "snapshot_pull",
  ]) {
    await db.schema.dropTable(table).ifExists().cascade().execute();
  }
  await sql`drop function if exists snapshot_immutable()`.execute(db);
}
