import { type RawBuilder, sql } from "kysely";

/**
 * The columns of the published snapshot tables with their PostgreSQL types, in one place: the bulk insert writes
 * them (db/queries/snapshot-store.ts) and the reads name them.
 */

export type ColumnType = "text" | "integer" | "bigint" | "numeric" | "boolean" | "timestamptz" | "jsonb" | "uuid";

export const SNAPSHOT_RECIPIENT_COLUMNS = {
  recipient_player_id: "bigint",
  service_rank: "integer",
  resolved: "boolean",
  player_email: "text",
  player_name: "text",
  identity_id: "text",
  renewal_count: "integer",
  subscription_count: "integer",
  reversal_count: "integer",
  gross_attributed_usd: "numeric",
  reversed_attributed_usd: "numeric",
  net_attributed_usd: "numeric",
  first_paid_at: "timestamptz",
  last_paid_at: "timestamptz",
} as const satisfies Record<string, ColumnType>;

export type SnapshotRecipientColumn = keyof typeof SNAPSHOT_RECIPIENT_COLUMNS;

/** Every snapshot_recipient column but snapshot_id, in table order. */
export const SNAPSHOT_RECIPIENT_COLUMN_NAMES = Object.keys(SNAPSHOT_RECIPIENT_COLUMNS) as SnapshotRecipientColumn[];

export const SNAPSHOT_LINE_COLUMNS: Record<string, ColumnType> = {
  period_id: "bigint",
  recipient_player_id: "bigint",
  subscription_id: "text",
  period_seq: "integer",
  item_id: "text",
  item_name: "text",
  status: "text",
  period_start: "timestamptz",
  period_end: "timestamptz",
  paid_at: "timestamptz",
  amount_usd: "numeric",
  invo_fee_usd: "numeric",
  partner_revenue_usd: "numeric",
  partner_revenue_settled_usd: "numeric",
  partner_revenue_reversed_usd: "numeric",
  partner_leg_reversed: "boolean",
  percent_at_renewal: "numeric",
  base_usd: "numeric",
  attributed_amount_usd: "numeric",
  attribution_unavailable_reason: "text",
  transaction_id: "text",
  mint_order_id: "text",
  funding: "jsonb",
  refund: "jsonb",
  reconciliation: "jsonb",
};

export const SNAPSHOT_REVERSAL_COLUMNS: Record<string, ColumnType> = {
  period_id: "bigint",
  recipient_player_id: "bigint",
  subscription_id: "text",
  period_seq: "integer",
  status: "text",
  paid_at: "timestamptz",
  settled_in_this_window: "boolean",
  amount_usd: "numeric",
  originally_attributed_usd: "numeric",
  refunded_to_date_usd: "numeric",
  latest_refund_at: "timestamptz",
  reversed_attributed_usd: "numeric",
  partner_revenue_reversed_usd: "numeric",
  reversal_basis: "text",
  nets_to_zero_in_window: "boolean",
  note: "text",
  event_count: "integer",
};

export const SNAPSHOT_REFUND_EVENT_COLUMNS: Record<string, ColumnType> = {
  period_id: "bigint",
  seq: "integer",
  refunded_at: "timestamptz",
  refunded_amount_usd: "numeric",
  cumulative_refunded_before_usd: "numeric",
  cumulative_refunded_after_usd: "numeric",
  reversed_attributed_usd: "numeric",
  partner_revenue_reversed_usd: "numeric",
  partner_revenue_reversal_basis: "text",
  is_full_refund: "boolean",
};

export const SNAPSHOT_SUB_WINDOW_COLUMNS: Record<string, ColumnType> = {
  seq: "integer",
  scope: "text",
  recipient_player_id: "bigint",
  window_start: "timestamptz",
  window_end: "timestamptz",
  depth: "integer",
  reason: "text",
  pages: "integer",
};

export const SNAPSHOT_DRIFT_COLUMNS: Record<string, ColumnType> = {
  seq: "integer",
  previous_snapshot_id: "uuid",
  severity: "text",
  entity: "text",
  entity_key: "text",
  field: "text",
  previous_value: "text",
  current_value: "text",
};

/** The tables written with one bulk insert per chunk, with their columns. */
export const BULK_TABLE_COLUMNS = {
  snapshot_recipient: SNAPSHOT_RECIPIENT_COLUMNS,
  snapshot_line: SNAPSHOT_LINE_COLUMNS,
  snapshot_reversal: SNAPSHOT_REVERSAL_COLUMNS,
  snapshot_refund_event: SNAPSHOT_REFUND_EVENT_COLUMNS,
  snapshot_sub_window: SNAPSHOT_SUB_WINDOW_COLUMNS,
  snapshot_drift: SNAPSHOT_DRIFT_COLUMNS,
} as const;

export type BulkTable = keyof typeof BULK_TABLE_COLUMNS;

/**
 * A snapshot recipient's net as its statement will take it (core/money.ts netInCents): gross and reversed each rounded
 * to the cent (half away from zero, as PostgreSQL rounds numeric), then their difference; `alias` names the table.
 */
export function snapshotNetInCents(alias: string): RawBuilder<string> {
  const column = (name: SnapshotRecipientColumn) => sql.ref(`${alias}.${name}`);
  return sql<string>`(round(${column("gross_attributed_usd")}, 2) - round(${column("reversed_attributed_usd")}, 2))`;
}
