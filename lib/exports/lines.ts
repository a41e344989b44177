import "server-only";
import type { Db } from "@/db";
import { linePage, selectRecipientCells } from "@/db/queries/exports-cells";
import type { ExportColumn, ExportRow } from "./csv";
import { queryCells, utcTimestampToInstant } from "./sql";
import { streamKeysetCells } from "./stream";
import type { ExportKindDefinition, ResolvedTarget } from "./types";

export const LINE_COLUMNS: readonly ExportColumn[] = [
  { name: "snapshot_id", type: "text", description: "The snapshot (window version) the line belongs to." },
  { name: "recipient_player_id", type: "integer", description: "The player credited with the renewal." },
  {
    name: "recipient_name",
    type: "text",
    description: "The recipient's name as the service reported it (empty when unresolved).",
  },
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
  {
    name: "partner_revenue_settled_usd",
    type: "decimal",
    description: "The partner's leg at settlement (amount less fee).",
  },
  {
    name: "partner_revenue_reversed_usd",
    type: "decimal",
    description: "Partner revenue reversed by refunds of the period, to date.",
  },
  { name: "partner_revenue_usd", type: "decimal", description: "Partner revenue net of reversal." },
  { name: "percent_at_renewal", type: "decimal", description: "Revenue-share rate in force at the renewal (percent)." },
  {
    name: "base_usd",
    type: "decimal",
    description: "The base the share is a percentage of (amount after the service fee).",
  },
  {
    name: "attributed_amount_usd",
    type: "decimal",
    description: "Revenue share earned by the recipient on this renewal (gross, before reversals).",
  },
  {
    name: "attribution_unavailable_reason",
    type: "text",
    description: "Why no share was recorded, when none was (spec keys).",
  },
  {
    name: "base_matches_settled_fee",
    type: "boolean",
    description: "The service's own reconciliation of the base (empty when not checked).",
  },
  { name: "transaction_id", type: "text", description: "The service's transaction of the charge." },
  { name: "mint_order_id", type: "text", description: "The mint order (empty when the wallet covered the period)." },
];

export { LINE_PAGE_SIZE, selectLineCells } from "@/db/queries/exports-cells";
import { LINE_PAGE_SIZE } from "@/db/queries/exports-cells";

/** Cells of linePage that are filled in by the reader: the snapshot id, the recipient's name and email. */
const SNAPSHOT_CELL = 0;
const RECIPIENT_CELL = 1;
const NAME_CELL = 2;
const EMAIL_CELL = 3;
const PERIOD_CELL = 4;
const INSTANT_CELLS = [10, 11, 12] as const;

type RecipientCells = { name: string | null; email: string | null };

/** Name and email of every recipient of the snapshot, by player id: one read, held for the whole export. */
async function recipientCells(db: Db, snapshotId: string): Promise<Map<string, RecipientCells>> {
  const rows = await queryCells(db, selectRecipientCells(db, snapshotId));
  const byId = new Map<string, RecipientCells>();
  for (const [id, name, email] of rows) byId.set(id as string, { name: name ?? null, email: email ?? null });
  return byId;
}

export async function* linePages(
  db: Db,
  target: Pick<ResolvedTarget, "snapshotId">,
): AsyncGenerator<ExportRow[], void, undefined> {
  const recipients = await recipientCells(db, target.snapshotId);
  const batches = streamKeysetCells(db, (after) => linePage(db, target.snapshotId, after), {
    keyIndex: PERIOD_CELL,
    pageSize: LINE_PAGE_SIZE,
  });
  for await (const batch of batches) {
    for (const cells of batch) {
      cells[SNAPSHOT_CELL] = target.snapshotId;
      const recipient = recipients.get(cells[RECIPIENT_CELL] as string);
      if (recipient) {
        cells[NAME_CELL] = recipient.name;
        cells[EMAIL_CELL] = recipient.email;
      }
      for (const at of INSTANT_CELLS) {
        const text = cells[at];
        if (text != null) cells[at] = utcTimestampToInstant(text);
      }
    }
    yield batch;
  }
}

export const linesExport: ExportKindDefinition = {
  kind: "lines",
  title: "Renewal lines",
  summary: "One row per renewal line (settled renewal with its attribution) of a snapshot, in period id order.",
  columns: LINE_COLUMNS,
  pages: linePages,
};
