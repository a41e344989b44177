import type { PayoutBatchStatus } from "@/db/types";
import type { ExportKind } from "./types";

/**
 * Whether an export can be made of a window in its current state, with the reason when not: the window page offers
 * only those that can, and lib/exports/run.ts refuses the others with the same reason.
 */
export type ExportAvailability = { ok: true } | { ok: false; reason: string };

/** Exports read from the payout batch rather than only from the snapshot. */
export const BATCH_EXPORTS: readonly ExportKind[] = ["payouts", "journal", "journal-xero", "journal-quickbooks"];

/** Exports made of the journal: empty until the batch is approved. */
const JOURNAL_EXPORTS: readonly ExportKind[] = ["journal", "journal-xero", "journal-quickbooks"];

export function exportAvailability(kind: ExportKind, batch: { status: PayoutBatchStatus } | null): ExportAvailability {
  if (!BATCH_EXPORTS.includes(kind)) return { ok: true };
  if (!batch || batch.status === "discarded")
    return { ok: false, reason: "There is no payout batch for this window yet: prepare one first." };
  // Journal entries exist from approval on (lib/payouts/ledger.ts): a draft has nothing to post yet.
  if (JOURNAL_EXPORTS.includes(kind) && batch.status === "draft")
    return { ok: false, reason: "The journal is empty until the batch is approved: nothing is posted from a draft." };
  return { ok: true };
}
