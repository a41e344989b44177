import type { Db } from "@/db";
import type { ExportColumn, ExportRow } from "./csv";
import type { CsvRecords } from "./csv-records";

export const EXPORT_KINDS = ["payouts", "lines", "reversals", "journal", "journal-xero", "journal-quickbooks"] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** What an export reads: a snapshot of one game, and for payout files and journals, the payout batch built on it. */
export type ResolvedTarget = {
  gameId: string;
  snapshotId: string;
  snapshotVersion: number;
  windowStartMs: number;
  windowEndMs: number;
  batchId: string | null;
  /** The file of an export split into parts (from 1), and how many there are; 1 of 1 for most. */
  part: number;
  parts: number;
  /** The digest of how the parts are split (journal-files.ts splitJournals); null for a file in one part. */
  split: string | null;
  /** Every part written in one run (the command line): see PartsRun. */
  run?: PartsRun;
};

/**
 * The parts of a file written one after another in one run (`desk export`): read from one snapshot of the database, the
 * split read once, each part's journals read on from where the part before it stopped and what every part is written
 * with (the recipients' names) read once, where each part asked on its own reads the batch's postings from the start.
 * `state`: what a kind keeps between parts (journal-files.ts).
 */
export type PartsRun = {
  split: { parts: number; split: string } | null;
  state: Map<string, unknown>;
};

export type ExportKindDefinition = {
  kind: ExportKind;
  title: string;
  summary: string;
  columns: readonly ExportColumn[];
  /** Whether the export needs a payout batch (payout file, journal) or only a snapshot. */
  needsBatch?: boolean;
  /**
   * The import the file is made for, taken as written: no byte-order mark, which is for the files people open in a
   * spreadsheet (and is refused for this one).
   */
  importedBy?: string;
  /**
   * Read from one snapshot of the database (a read-only repeatable-read transaction): a file whose rows come from
   * several queries (a batch's statements, then their payments' returns) or whose parts are split by a check.
   */
  oneSnapshot?: boolean;
  /** Refuses, with an AppError, an export that cannot be made as asked (an account not mapped). */
  check?(db: Db, target: ResolvedTarget): Promise<void>;
  /** How many files the export is split into (each one imports on its own), and the split's digest; one if absent. */
  parts?(db: Db, target: ResolvedTarget): Promise<{ parts: number; split: string }>;
  /** The file's rows, or its records as PostgreSQL wrote them (lines.ts). */
  pages(db: Db, target: ResolvedTarget): AsyncGenerator<ExportRow[] | CsvRecords, void, undefined>;
};
