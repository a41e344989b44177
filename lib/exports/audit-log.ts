import "server-only";
import { randomUUID } from "node:crypto";
import type { Db, DbOrTrx } from "@/db";
import { type AuditFilter, listAuditEntriesBefore } from "@/db/queries/audit";
import type { ActingAs } from "@/core/actor";
import { formatInstant } from "@/lib/time";
import { type AuditedCsv, startAuditedCsv } from "./audited";
import type { ExportColumn, ExportRow } from "./csv";
import { keysetPages } from "./keyset";
import { startOneSnapshotReading } from "./reading";

/**
 * The audit log as CSV for auditors: the entries the audit page shows with the same filters, newest first, every
 * one of them (not only the page on screen). The download is itself a line of the audit log, with the filters.
 */

const PAGE_SIZE = 1_000;

export const AUDIT_LOG_COLUMNS: readonly ExportColumn[] = [
  { name: "id", type: "integer", description: "The entry's number (increasing)." },
  { name: "at", type: "instant", description: "When it was written (UTC)." },
  {
    name: "actor_email",
    type: "text",
    description: "Who acted (empty: a command run on a server, via cli, or Payout Desk itself).",
  },
  { name: "via", type: "text", description: "web, cli or job." },
  { name: "action", type: "text", description: "What was done." },
  { name: "game_id", type: "text", description: "The game, when the action concerns one." },
  { name: "target", type: "text", description: "What it was done to." },
  { name: "idempotency_key", type: "text", description: "The key that makes a repeat do nothing." },
  { name: "outcome", type: "text", description: "How it ended." },
  { name: "detail", type: "text", description: "The entry's details, as JSON." },
];

export type AuditLogFilterDetail = Record<string, string>;

/** The filters as written to the audit line of the download (only those set). */
function filterDetail(filter: AuditFilter): AuditLogFilterDetail {
  const out: AuditLogFilterDetail = {};
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined || value === "") continue;
    out[key] = value instanceof Date ? formatInstant(value) : String(value);
  }
  return out;
}

export async function startAuditLogExport(
  db: Db,
  params: { filter: AuditFilter; bom: boolean },
  acting: ActingAs,
): Promise<AuditedCsv & { exportId: string; filename: string }> {
  const exportId = randomUUID();
  const filename = `audit-log_${formatInstant(Date.now()).slice(0, 10)}.csv`;
  // Read from one snapshot of the database: a long transaction's lines (a profile import writes one a row) committing
  // while the file streams are in it whole or not at all, never those past the cursor without those before it.
  const { reading, end } = await startOneSnapshotReading(db);
  try {
    return await streamAuditLog(db, reading, { ...params, exportId, filename }, acting, () => end("commit"));
  } catch (error) {
    await end("rollback");
    throw error;
  }
}

async function streamAuditLog(
  db: Db,
  reading: DbOrTrx,
  params: { filter: AuditFilter; bom: boolean; exportId: string; filename: string },
  acting: ActingAs,
  onEnd: () => Promise<unknown>,
): Promise<AuditedCsv & { exportId: string; filename: string }> {
  const { exportId, filename } = params;
  // The download's own lines are written after the read starts from a fixed point: they never appear in it.
  const first = await listAuditEntriesBefore(reading, params.filter, { beforeId: null, limit: 1 });
  const start = first[0] ? String(BigInt(first[0].id) + 1n) : null;
  const pages = keysetPages(
    async (after) => {
      const rows = await listAuditEntriesBefore(reading, params.filter, {
        beforeId: after ?? start,
        limit: PAGE_SIZE,
      });
      return rows;
    },
    (row) => row.id,
    PAGE_SIZE,
  );
  async function* rows(): AsyncGenerator<ExportRow[]> {
    if (start === null) return;
    for await (const page of pages)
      yield page.map((e) => ({
        id: e.id,
        at: formatInstant(e.at),
        actor_email: e.actorEmail,
        via: e.via,
        action: e.action,
        game_id: e.gameId,
        target: e.target,
        idempotency_key: e.idempotencyKey,
        outcome: e.outcome,
        detail: JSON.stringify(e.detail),
      }));
  }
  const filters = filterDetail(params.filter);
  const csv = await startAuditedCsv(db, {
    columns: AUDIT_LOG_COLUMNS,
    pages: rows(),
    bom: params.bom,
    audit: { ...acting, action: "export.audit-log", gameId: null, target: null, id: exportId },
    detail: { kind: "audit-log", via: acting.via, filename, filters },
    onEnd,
  });
  return { ...csv, exportId, filename };
}
