import "server-only";
import { selectReversalCells } from "@/db/queries/exports-cells";
import type { ExportColumn } from "./csv";
import { keysetPages } from "./keyset";
import type { ExportKindDefinition } from "./types";

export const REVERSAL_COLUMNS: readonly ExportColumn[] = [
  { name: "snapshot_id", type: "text", description: "The snapshot (window version) the reversal belongs to." },
  { name: "recipient_player_id", type: "integer", description: "The recipient whose share is reversed." },
  { name: "recipient_name", type: "text", description: "The recipient's name (empty when unresolved)." },
  { name: "recipient_email", type: "text", description: "The recipient's email (empty when unresolved)." },
  { name: "period_id", type: "integer", description: "The refunded renewal line." },
  { name: "subscription_id", type: "text", description: "Its subscription." },
  { name: "period_seq", type: "integer", description: "Which renewal of the subscription." },
  { name: "period_status", type: "text", description: "The period's status at the service." },
  {
    name: "paid_at",
    type: "instant",
    description: "When the refunded renewal settled (possibly in an earlier window).",
  },
  { name: "settled_in_this_window", type: "boolean", description: "Whether that renewal settled inside this window." },
  { name: "period_amount_usd", type: "decimal", description: "Price charged for the period." },
  { name: "originally_attributed_usd", type: "decimal", description: "Share first attributed on the period." },
  {
    name: "refunded_to_date_usd",
    type: "decimal",
    description: "Refunded on the period so far, all windows (reference only).",
  },
  {
    name: "latest_refund_at",
    type: "instant",
    description: "Latest refund of the period, all windows (reference only).",
  },
  {
    name: "reversal_basis",
    type: "text",
    description:
      "refund_receipts (exact, per event) or period_row (coarse: wholly in the window of the latest refund).",
  },
  {
    name: "nets_to_zero_in_window",
    type: "boolean",
    description: "Settled and fully refunded inside the window: pay nothing for it.",
  },
  {
    name: "period_reversed_attributed_usd",
    type: "decimal",
    description:
      "Share reversed on the period in this window. " +
      "Repeated on each event row of the period: sum it once per period_id.",
  },
  {
    name: "period_partner_revenue_reversed_usd",
    type: "decimal",
    description: "Partner revenue reversed on the period in this window. Repeated like the column above.",
  },
  {
    name: "event_seq",
    type: "integer",
    description:
      "The refund event's position among the period's events in this window (1, 2, ...); " +
      "empty when the service gave none.",
  },
  {
    name: "refunded_at",
    type: "instant",
    description: "When this refund was recorded; decides the window of the reversal.",
  },
  { name: "refunded_amount_usd", type: "decimal", description: "Amount of this refund." },
  {
    name: "cumulative_refunded_before_usd",
    type: "decimal",
    description: "Refunded on the period before this refund.",
  },
  { name: "cumulative_refunded_after_usd", type: "decimal", description: "Refunded on the period after this refund." },
  {
    name: "reversed_attributed_usd",
    type: "decimal",
    description:
      "Share reversed by this refund (on a reversal's row without events, the period's share reversed in the " +
      "window). Sum of the column = share reversed in the window.",
  },
  { name: "partner_revenue_reversed_usd", type: "decimal", description: "Partner revenue reversed by this refund." },
  {
    name: "partner_revenue_reversal_basis",
    type: "text",
    description: "How the partner leg was reversed (clawback, sale_fee_row_reversed, none; or the mode).",
  },
  { name: "is_full_refund", type: "boolean", description: "Whether this refund completed the period's refund." },
  { name: "note", type: "text", description: "The service's note on the reversal." },
];

/** Reversals per page; their refund events come with them, so a page holds a few more rows than this. */
export const REVERSAL_PAGE_SIZE = 2_000;

export const reversalsExport: ExportKindDefinition = {
  kind: "reversals",
  title: "Reversals and refund events",
  summary:
    "One row per refund event of each reversal in a snapshot (a reversal the service reported without events " +
    "gets one row with the event columns empty), in period id then event order.",
  columns: REVERSAL_COLUMNS,
  pages(db, target) {
    // A page is a set of whole reversals with their events, so its row count says nothing about whether more
    // follow: a page size of 1 reads on until a page comes back empty (one extra, cheap query).
    return keysetPages<Record<string, string | null>>(
      (after) => selectReversalCells(db, target, after, REVERSAL_PAGE_SIZE).execute(),
      (row) => row.period_id ?? "",
      1,
    );
  },
};
