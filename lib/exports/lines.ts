import "server-only";
import { sql } from "kysely";
import type { Db } from "@/db";
import type { ExportColumn, ExportRow } from "./csv";
import { keysetPages } from "./keyset";
import { decimalText, instantText, integerText } from "./sql";
import type { ExportKindDefinition, ResolvedTarget } from "./types";

export const LINE_COLUMNS: readonly ExportColumn[] = [
  { name: "snapshot_id", type: "text", description: "The snapshot (window version) the line belongs to." },
  { name: "recipient_player_id", type: "integer", description: "The player credited with the renewal." },
  { name: "recipient_name", type: "text", description: "The recipient's name as the service reported it (empty when unresolved)." },
  { name: "recipient_email", type: "text", description: "The recipient's email (empty when unresolved)." },
  { name: "period_id", type: "integer", description: "The service's id of the renewal line (billing period)." },
  { name: "subscription_id", type: "text", description: "The subscription renewed." },
  { name: "period_seq", type: "integer", description: "Which renewal of the subscription (1 = first period)." },
  { name: "item_id", type: "text", description: "The subscribed item." },
  { name: "item_name", type: "text", description: "The item's name." },
  { name: "status", type: "text", description: "The period's status at the service (paid, refunded, ...)." },
  { name: "period_start", type: "instant", description: "Start of the billing period (UTC)." },
  { name: "period_end", type: "instant", description: "End of the billing period (UTC)." },
  { name: "paid_at", type: "instant", description: "When the renewal settled; decides the window it belongs to." },
  { name: "amount_usd", type: "decimal", description: "Price charged for the period." },
  { name: "invo_fee_usd", type: "decimal", description: "The service's fee (never reversed by a refund)." },
  { name: "partner_revenue_settled_usd", type: "decimal", description: "The partner's leg at settlement (amount less fee)." },
  { name: "partner_revenue_reversed_usd", type: "decimal", description: "Partner revenue reversed by refunds of the period, to date." },
  { name: "partner_revenue_usd", type: "decimal", description: "Partner revenue net of reversal." },
  { name: "percent_at_renewal", type: "decimal", description: "Revenue-share rate in force at the renewal (percent)." },
  { name: "base_usd", type: "decimal", description: "The base the share is a percentage of (amount after the service fee)." },
  { name: "attributed_amount_usd", type: "decimal", description: "Revenue share earned by the recipient on this renewal (gross, before reversals)." },
  { name: "attribution_unavailable_reason", type: "text", description: "Why no share was recorded, when none was (spec keys)." },
  { name: "base_matches_settled_fee", type: "boolean", description: "The service's own reconciliation of the base (empty when not checked)." },
  { name: "transaction_id", type: "text", description: "The service's transaction of the charge." },
  { name: "mint_order_id", type: "text", description: "The mint order (empty when the wallet covered the period)." },
];

export const LINE_PAGE_SIZE = 2_000;

/** Every renewal line of one snapshot as export cells, in period id order. Also the statement the bench COPYs. */
export function selectLineCells(db: Db, target: Pick<ResolvedTarget, "gameId" | "snapshotId">) {
  return db
    .selectFrom("snapshot_line as l")
    .innerJoin("snapshot as s", "s.id", "l.snapshot_id")
    .leftJoin("snapshot_recipient as r", (join) =>
      join.onRef("r.snapshot_id", "=", "l.snapshot_id").onRef("r.recipient_player_id", "=", "l.recipient_player_id"),
    )
    .where("s.game_id", "=", target.gameId)
    .where("l.snapshot_id", "=", target.snapshotId)
    .select([
      "l.snapshot_id as snapshot_id",
      integerText("l.recipient_player_id").as("recipient_player_id"),
      "r.player_name as recipient_name",
      "r.player_email as recipient_email",
      integerText("l.period_id").as("period_id"),
      "l.subscription_id as subscription_id",
      integerText("l.period_seq").as("period_seq"),
      "l.item_id as item_id",
      "l.item_name as item_name",
      "l.status as status",
      instantText("l.period_start").as("period_start"),
      instantText("l.period_end").as("period_end"),
      instantText("l.paid_at").as("paid_at"),
      decimalText("l.amount_usd").as("amount_usd"),
      decimalText("l.invo_fee_usd").as("invo_fee_usd"),
      decimalText("l.partner_revenue_settled_usd").as("partner_revenue_settled_usd"),
      decimalText("l.partner_revenue_reversed_usd").as("partner_revenue_reversed_usd"),
      decimalText("l.partner_revenue_usd").as("partner_revenue_usd"),
      decimalText("l.percent_at_renewal").as("percent_at_renewal"),
      decimalText("l.base_usd").as("base_usd"),
      decimalText("l.attributed_amount_usd").as("attributed_amount_usd"),
      "l.attribution_unavailable_reason as attribution_unavailable_reason",
      sql<string | null>`case l.reconciliation ->> 'base_matches_settled_fee' when 'true' then 'true' when 'false' then 'false' end`.as(
        "base_matches_settled_fee",
      ),
      "l.transaction_id as transaction_id",
      "l.mint_order_id as mint_order_id",
    ])
    .orderBy("l.period_id");
}

export const linesExport: ExportKindDefinition = {
  kind: "lines",
  title: "Renewal lines",
  summary: "One row per renewal line (settled renewal with its attribution) of a snapshot, in period id order.",
  columns: LINE_COLUMNS,
  pages(db, target) {
    return keysetPages<ExportRow>(
      (after) => {
        let query = selectLineCells(db, target);
        if (after !== null) query = query.where("l.period_id", ">", after);
        return query.limit(LINE_PAGE_SIZE).execute();
      },
      (row) => row.period_id ?? "",
      LINE_PAGE_SIZE,
    );
  },
};
