import "server-only";
import type { Db } from "@/db";
import { readCopyOut } from "@/db/queries/copy";
import { type CsvCellKind, copyLineRecords, LINE_COPY_PAGE, lineCopyPageEnd } from "@/db/queries/exports-cells";
import type { ExportColumn } from "./csv";
import { type CsvRecords, crlfRecords } from "./csv-records";
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

export { selectLineCells } from "@/db/queries/exports-cells";

const CELL_KINDS: Readonly<Record<string, CsvCellKind>> = Object.fromEntries(
  LINE_COLUMNS.map((c) => [c.name, c.type === "text" || c.type === "decimal" ? c.type : "other"]),
);

type CopyPage = { records: CsvRecords; last: string; more: boolean };

/** One page of the file (LINE_COPY_PAGE lines after `after`), written by PostgreSQL's COPY; null past the last. */
async function copyPage(db: Db, target: Pick<ResolvedTarget, "gameId" | "snapshotId">, after: string | null) {
  const end = await lineCopyPageEnd(db, { snapshotId: target.snapshotId, after, limit: LINE_COPY_PAGE });
  if (end.last === null) return null;
  const statement = copyLineRecords(db, { ...target, after, upTo: end.last, kinds: CELL_KINDS });
  const records = crlfRecords(await readCopyOut(db, statement));
  if (records.ends.length !== end.lines)
    throw new Error(`a page of ${end.lines} lines was written as ${records.ends.length} records`);
  return { records, last: end.last, more: end.lines === LINE_COPY_PAGE } satisfies CopyPage;
}

/**
 * The lines file's records, written by PostgreSQL itself (cells formatted and quoted by COPY, as the CSV writer
 * would), one page of lines after the other: the next page is read while this one is handed on, so at most two
 * pages are held, and a page holds its connection only while PostgreSQL writes it.
 */
export async function* linePages(
  db: Db,
  target: Pick<ResolvedTarget, "gameId" | "snapshotId">,
): AsyncGenerator<CsvRecords, void, undefined> {
  let next: Promise<CopyPage | null> | null = copyPage(db, target, null);
  try {
    while (next) {
      const page: CopyPage | null = await next;
      next = null;
      if (!page) return;
      if (page.more) next = copyPage(db, target, page.last);
      yield page.records;
    }
  } finally {
    // A page still being read when the reader stops is let finish, so that its connection goes back to the pool.
    await next?.catch(() => null);
  }
}

export const linesExport: ExportKindDefinition = {
  kind: "lines",
  title: "Renewal lines",
  summary: "One row per renewal line (settled renewal with its attribution) of a snapshot, in period id order.",
  columns: LINE_COLUMNS,
  pages: linePages,
};
