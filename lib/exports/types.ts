import type { Db } from "@/db";
import type { ExportColumn, ExportRow } from "./csv";

export const EXPORT_KINDS = ["payouts", "lines", "reversals", "journal"] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** What an export reads: a snapshot of one game, and for payout files and journals, the payout batch built on it. */
export type ResolvedTarget = {
  gameId: string;
  snapshotId: string;
  snapshotVersion: number;
  windowStartMs: number;
  windowEndMs: number;
  batchId: string | null;
};

export type ExportKindDefinition = {
  kind: ExportKind;
  title: string;
  summary: string;
  columns: readonly ExportColumn[];
  /** Whether the export needs a payout batch (payout file, journal) or only a snapshot. */
  needsBatch?: boolean;
  pages(db: Db, target: ResolvedTarget): AsyncGenerator<ExportRow[], void, undefined>;
};
