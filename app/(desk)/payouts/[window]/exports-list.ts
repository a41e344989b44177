import "server-only";
import type { Db } from "@/db";
import { isAppError } from "@/lib/errors";
import { exportAvailability } from "@/lib/exports/availability";
import { checkJournalAccounts } from "@/lib/exports/journal-files";
import type { ExportKind } from "@/lib/exports/types";
import { xeroSplit } from "@/lib/exports/xero";
import type { PayoutBatchSummary } from "@/lib/payouts/ledger";
import type { ExportLink } from "./export-links";

/**
 * The window's downloads, each with the reason it cannot be made now (if so): the ledger files also need the game's
 * accounts mapped, and the Xero journals get a link per file when they take more than one.
 */
export async function windowExportLinks(
  db: Db,
  params: { gameId: string; batch: PayoutBatchSummary | null; snapshotId: string },
): Promise<ExportLink[]> {
  const { batch } = params;
  const byBatch = batch ? `batch=${batch.id}` : "";
  const base: { kind: ExportKind; label: string; query: string }[] = [
    { kind: "payouts", label: "Payout file", query: byBatch },
    { kind: "journal", label: "Journal", query: byBatch },
    { kind: "journal-xero", label: "Xero manual journals", query: byBatch },
    { kind: "journal-quickbooks", label: "QuickBooks Online journal entries", query: byBatch },
    { kind: "lines", label: "Renewal lines", query: `snapshot=${params.snapshotId}` },
    { kind: "reversals", label: "Reversals and refund events", query: `snapshot=${params.snapshotId}` },
  ];
  const links: ExportLink[] = [];
  for (const e of base) {
    const available = exportAvailability(e.kind, batch);
    let unavailable = available.ok ? null : available.reason;
    const ledgerFile = e.kind === "journal-xero" || e.kind === "journal-quickbooks";
    if (ledgerFile && unavailable === null) {
      try {
        const target = { gameId: params.gameId, batchId: batch?.id ?? null };
        await checkJournalAccounts(db, target, { taxRate: e.kind === "journal-xero" });
      } catch (error) {
        if (!isAppError(error)) throw error;
        unavailable = error.message;
      }
    }
    if (e.kind === "journal-xero" && unavailable === null && batch) {
      // Each link names the split it was listed under: a part of a listing the batch has since outgrown is refused.
      const { parts, split } = await xeroSplit(db, { gameId: params.gameId, batchId: batch.id });
      for (let part = 1; part <= parts; part++) {
        links.push({
          kind: e.kind,
          label: parts > 1 ? `${e.label}, part ${part} of ${parts}` : e.label,
          query: `${e.query}&part=${part}&split=${split}`,
          unavailable: null,
        });
      }
      continue;
    }
    links.push({ ...e, unavailable });
  }
  return links;
}
