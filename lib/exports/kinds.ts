import "server-only";
import { z } from "zod";
import { journalExport } from "./journal";
import { linesExport } from "./lines";
import { payoutsExport } from "./payouts";
import { quickbooksJournalExport } from "./quickbooks";
import { reversalsExport } from "./reversals";
import { xeroJournalExport } from "./xero";
import { EXPORT_KINDS, type ExportKind, type ExportKindDefinition } from "./types";

export const EXPORTS: Record<ExportKind, ExportKindDefinition> = {
  payouts: payoutsExport,
  lines: linesExport,
  reversals: reversalsExport,
  journal: journalExport,
  "journal-xero": xeroJournalExport,
  "journal-quickbooks": quickbooksJournalExport,
};

/** Why a byte-order mark is refused for a kind (a file made for an import, read as written), or null. */
export function bomRefusal(kind: ExportKind): string | null {
  const definition = EXPORTS[kind];
  if (!definition.importedBy) return null;
  return (
    `a byte-order mark is for files opened in a spreadsheet; the ${definition.title} file is made for ` +
    `${definition.importedBy} as written`
  );
}

export const exportKindSchema = z.enum(EXPORT_KINDS, { message: `must be one of ${EXPORT_KINDS.join(", ")}` });
