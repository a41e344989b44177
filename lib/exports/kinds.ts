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

export const exportKindSchema = z.enum(EXPORT_KINDS, { message: `must be one of ${EXPORT_KINDS.join(", ")}` });
