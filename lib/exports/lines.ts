import "server-only";
import type { Db } from "@/db";
import { type CopyOutEnd, streamCopyOut } from "@/db/queries/copy";
import { type CsvCellKind, copyLineRecords } from "@/db/queries/exports-cells";
import type { ExportColumn } from "./csv";
import { type CsvRecords, crlfWholeRecords, lastRecordCell } from "./csv-records";
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

/** What a download holds at most ahead of its reader: past it the COPY is cut (and resumed once the reader is back). */
const LINE_BUFFER_BYTES = 8 * 1024 * 1024;
/** Pieces of the COPY's output handed on at once (its messages are joined up to this size). */
const LINE_PIECE_BYTES = 256 * 1024;
const PERIOD_ID_CELL = LINE_COLUMNS.findIndex((c) => c.name === "period_id");

/**
 * The lines file's records, written by PostgreSQL itself (cells formatted and quoted by COPY, as the CSV writer
 * would) in one `COPY … TO STDOUT` of every line, handed on as PostgreSQL writes them. The COPY never waits on the
 * reader: a reader that falls more than `maxBufferedBytes` behind has the statement cut and its connection closed,
 * and the lines after the last record handed on are read by a new COPY once the reader asks for more. So a download
 * holds at most about that many bytes (and the piece being handed on), and a stalled client holds no connection.
 */
export async function* linePages(
  db: Db,
  target: Pick<ResolvedTarget, "gameId" | "snapshotId">,
  options: { maxBufferedBytes?: number } = {},
): AsyncGenerator<CsvRecords, void, undefined> {
  const maxBufferedBytes = options.maxBufferedBytes ?? LINE_BUFFER_BYTES;
  const pieceBytes = Math.min(LINE_PIECE_BYTES, maxBufferedBytes);
  let after: string | null = null;
  for (;;) {
    const statement = copyLineRecords(db, { ...target, after, kinds: CELL_KINDS });
    const output = streamCopyOut(db, statement, { maxBufferedBytes, pieceBytes });
    let rest: Buffer = Buffer.alloc(0);
    let last: CsvRecords | null = null;
    let next: IteratorResult<Buffer, CopyOutEnd>;
    try {
      for (next = await output.next(); !next.done; next = await output.next()) {
        const whole = crlfWholeRecords(rest.length > 0 ? Buffer.concat([rest, next.value]) : next.value);
        rest = whole.rest;
        if (whole.records.ends.length === 0) continue;
        last = whole.records;
        yield whole.records;
      }
    } finally {
      // A reader that stops early ends the statement (and gives its connection back).
      await output.return({ cut: true });
    }
    if (!next.value.cut) {
      if (rest.length > 0) throw new Error("the database's CSV ends inside a record");
      return;
    }
    // Cut: what follows the last record handed on is read again by the next COPY.
    if (last) after = lastRecordCell(last, PERIOD_ID_CELL);
  }
}

export const linesExport: ExportKindDefinition = {
  kind: "lines",
  title: "Renewal lines",
  summary: "One row per renewal line (settled renewal with its attribution) of a snapshot, in period id order.",
  columns: LINE_COLUMNS,
  pages: linePages,
};
