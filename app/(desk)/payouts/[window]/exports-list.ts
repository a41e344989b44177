import "server-only";
import type { Db } from "@/db";
import { isAppError } from "@/lib/errors";
import { downloadQuery } from "@/lib/games/download-game";
import { exportAvailability } from "@/lib/exports/availability";
import { checkJournalAccounts } from "@/lib/exports/journal-files";
import type { ExportKind } from "@/lib/exports/types";
import { quickbooksSplit } from "@/lib/exports/quickbooks";
import { xeroSplit } from "@/lib/exports/xero";
import type { PayoutBatchSummary } from "@/lib/payouts/ledger";
import type { ExportLink } from "./export-links";

/**
 * Batches up to this many statements list their ledger files' parts on the window page; larger ones link to a page of
 * the parts, since splitting reads every posting of the batch (seconds at a hundred thousand statements).
 */
export const PARTS_INLINE_MAX_STATEMENTS = 500;

/** The ledger files split into parts their importers take (at most 300 lines for Xero, 1,000 rows for QuickBooks). */
export const PARTED_FILES = {
  "journal-xero": { label: "Xero manual journals", split: xeroSplit },
  "journal-quickbooks": { label: "QuickBooks Online journal entries", split: quickbooksSplit },
} as const;
export type PartedKind = keyof typeof PARTED_FILES;

export function isPartedKind(kind: string): kind is PartedKind {
  return Object.hasOwn(PARTED_FILES, kind);
}

/**
 * Why an export of the window cannot be made now, or null: the batch's state, and for the ledger files the game's
 * accounts mapping.
 */
export async function exportUnavailable(
  db: Db,
  kind: ExportKind,
  params: { gameId: string; batch: PayoutBatchSummary | null },
): Promise<string | null> {
  const available = exportAvailability(kind, params.batch);
  if (!available.ok) return available.reason;
  if (kind !== "journal-xero" && kind !== "journal-quickbooks") return null;
  try {
    const target = { gameId: params.gameId, batchId: params.batch?.id ?? null };
    await checkJournalAccounts(db, target, { taxRate: kind === "journal-xero" });
    return null;
  } catch (error) {
    if (!isAppError(error)) throw error;
    return error.message;
  }
}

/** The links to the parts of a batch's ledger file, each carrying the split it was listed under. */
export async function partLinks(
  db: Db,
  kind: PartedKind,
  params: { gameId: string; batchId: string },
): Promise<ExportLink[]> {
  const { label, split: splitOf } = PARTED_FILES[kind];
  const { parts, split } = await splitOf(db, params);
  return Array.from({ length: parts }, (_, i) => ({
    kind,
    label: parts > 1 ? `${label}, part ${i + 1} of ${parts}` : label,
    query: downloadQuery(`batch=${params.batchId}&part=${i + 1}&split=${split}`, params.gameId),
    unavailable: null,
  }));
}

/**
 * The window's downloads, each with the reason it cannot be made now (if so): the ledger files also need the game's
 * accounts mapped, and Xero's and QuickBooks' get a link per file when they take more than one (on a page of their
 * own for a large batch).
 */
export async function windowExportLinks(
  db: Db,
  params: { gameId: string; batch: PayoutBatchSummary | null; snapshotId: string; statements: number; href: string },
): Promise<ExportLink[]> {
  const { batch } = params;
  const byBatch = batch ? `batch=${batch.id}` : "";
  const base: { kind: ExportKind; label: string; query: string }[] = [
    { kind: "payouts", label: "Payout file", query: byBatch },
    { kind: "journal", label: "Journal", query: byBatch },
    { kind: "journal-xero", label: PARTED_FILES["journal-xero"].label, query: byBatch },
    { kind: "journal-quickbooks", label: PARTED_FILES["journal-quickbooks"].label, query: byBatch },
    { kind: "lines", label: "Renewal lines", query: `snapshot=${params.snapshotId}` },
    { kind: "reversals", label: "Reversals and refund events", query: `snapshot=${params.snapshotId}` },
  ];
  const links: ExportLink[] = [];
  for (const e of base) {
    const unavailable = await exportUnavailable(db, e.kind, { gameId: params.gameId, batch });
    if (isPartedKind(e.kind) && unavailable === null && batch) {
      if (params.statements > PARTS_INLINE_MAX_STATEMENTS) {
        links.push({ ...e, label: `${e.label}: choose a part…`, page: `${params.href}/parts/${e.kind}`, unavailable });
        continue;
      }
      // Each link names the split it was listed under: a part of a listing the batch has since outgrown is refused.
      links.push(...(await partLinks(db, e.kind, { gameId: params.gameId, batchId: batch.id })));
      continue;
    }
    links.push({ ...e, query: downloadQuery(e.query, params.gameId), unavailable });
  }
  return links;
}
