import "server-only";
import { createHash } from "node:crypto";
import type { ActingAs } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { holdPayoutsOfGame } from "@/lib/payouts/game-lock";
import type { Db } from "@/db";
import { getProfile, listProfiles } from "@/db/queries/profiles";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { refreshStatisticsAfterBulkWrite } from "@/lib/statistics";
import type { CsvRecord } from "@/lib/payments/formats/csv";
import {
  DETAIL_COLUMNS,
  EXPORT_COLUMNS,
  IMPORT_COLUMNS,
  type ImportColumn,
  METHOD_COLUMNS,
  parseCsv,
  writeCsv,
} from "./csv";
import { listProfileChanges } from "@/db/queries/profile-changes";
import { holdSealingKey } from "./seal";
import { changePayoutDetailsIn, type ProfileActing, setTaxFormIn } from "./profiles";
import { payoutDetailsInputSchema, playerIdSchema, taxFormInputSchema, taxFormText } from "./schemas";
import type { z } from "zod";

/** One change an import makes (or, in a dry run, would make). */
export type ImportChange = {
  line: number;
  playerId: number;
  kind: "details" | "tax_form";
  /** applied: in force now; pending: waits for a finance user's review; unchanged: already so. */
  effect: "applied" | "pending" | "unchanged";
  /** The masked details (details) or the form (tax_form). */
  summary: string;
  previous: string | null;
  /**
   * The change that waited for review, which this row withdraws (unchanged: the details in force repeated) or
   * replaces (pending), masked, with who entered it: perhaps a colleague.
   */
  displaced: string | null;
};
export type ImportRefusal = { line: number; playerId: number | null; reason: string };
export type ImportResult = {
  dryRun: boolean;
  applied: boolean;
  rows: number;
  changes: ImportChange[];
  refused: ImportRefusal[];
};

const MAX_ROWS = 5000;

/** A dry run, or the import in one transaction rolled back: thrown to leave nothing behind. */
class RollBack extends Error {}

function describeIssues(error: z.ZodError, columnOf: (field: string) => string): string {
  return error.issues
    .map((issue) => {
      const field = String(issue.path[0] ?? "");
      return field ? `${columnOf(field)}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

const COLUMN_OF_FIELD: Record<string, string> = Object.fromEntries(
  Object.entries(IMPORT_COLUMNS).map(([column, field]) => [field, column]),
);
const columnOf = (field: string) => COLUMN_OF_FIELD[field] ?? field;

/** What a header cell may be to be named back in a refusal: a word, never what looks like a value. */
const COLUMN_NAME = /^[a-z][a-z_]{0,39}$/;

const PROFILE_TABLES = ["payout_profile", "payout_profile_change"] as const;

/**
 * Imports payout profiles from CSV (columns in lib/profiles/csv.ts). Every row goes through the same domain functions
 * as the recipient page, in one transaction: the first details of a recipient apply at once, later ones wait for
 * review. A dry run, or any refused row, rolls the whole transaction back, so a dry run lists exactly what applying
 * would do and applying is all or nothing.
 */
export async function importProfiles(
  db: Db,
  p: { gameId: string; csv: string; dryRun: boolean },
  acting: ProfileActing,
): Promise<ImportResult> {
  let table: CsvRecord[];
  try {
    table = parseCsv(p.csv);
  } catch (error) {
    // The reason and the line only (CsvUnreadableError): never a cell, which may hold bank details.
    throw new AppError("INVALID_INPUT", `The file cannot be read as CSV: ${(error as Error).message}.`, {
      field: "file",
    });
  }
  const [header, ...body] = table;
  if (!header) throw new AppError("INVALID_INPUT", "The file is empty.", { field: "file" });
  const names = header.cells.map((h) => h.trim().toLowerCase());
  // Checked first, and nothing of the row repeated: a file saved without its header has a recipient's bank details
  // in its first row, which must not reach the page, the terminal or the log.
  if (!names.includes("player_id"))
    throw new AppError(
      "INVALID_INPUT",
      "The first row must be the header naming the columns, player_id among them: it has no player_id column.",
      { field: "file" },
    );
  const unknown = names.flatMap((n, i) =>
    Object.hasOwn(IMPORT_COLUMNS, n) ? [] : [COLUMN_NAME.test(n) ? n : `column ${i + 1}`],
  );
  if (unknown.length > 0)
    throw new AppError("INVALID_INPUT", `Unknown columns: ${unknown.join(", ")}. See the documented columns.`, {
      field: "file",
    });
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length > 0)
    throw new AppError("INVALID_INPUT", `Columns named twice: ${[...new Set(twice)].join(", ")}.`, { field: "file" });
  if (body.length > MAX_ROWS)
    throw new AppError("INVALID_INPUT", `At most ${MAX_ROWS} rows per file.`, { field: "file" });

  const result: ImportResult = { dryRun: p.dryRun, applied: false, rows: body.length, changes: [], refused: [] };
  try {
    await db.transaction().execute(async (trx) => {
      // First, as every change of details takes them before a profile row: a tax form's row locked earlier in the
      // file would otherwise wait for them while a review (or a key rotation) holding them waits for that row.
      await holdSealingKey(trx);
      await holdPayoutsOfGame(trx, p.gameId);
      const seen = new Set<number>();
      for (const { cells, line } of body) {
        const get = (column: ImportColumn) => (cells[names.indexOf(column)] ?? "").trim();
        const refuse = (reason: string, playerId: number | null = null) =>
          result.refused.push({ line, playerId, reason });
        const id = playerIdSchema.safeParse(get("player_id"));
        if (!id.success) {
          refuse(`player_id: ${id.error.issues[0]?.message ?? "is invalid"}`);
          continue;
        }
        const playerId = id.data;
        if (seen.has(playerId)) {
          refuse("the same player_id is on an earlier line", playerId);
          continue;
        }
        seen.add(playerId);
        const method = get("method");
        const hasDetails = DETAIL_COLUMNS.some((c) => get(c) !== "");
        const taxForm = get("tax_form");
        const hasTaxDates = get("tax_form_received_on") !== "" || get("tax_form_expires_on") !== "";
        if (!method && hasDetails) {
          refuse("payout details without a method: fill in the method column", playerId);
          continue;
        }
        if (!taxForm && hasTaxDates) {
          refuse("tax form dates without a tax_form", playerId);
          continue;
        }
        if (!method && !taxForm) {
          refuse("nothing to change: give a method or a tax_form", playerId);
          continue;
        }
        const reads = Object.hasOwn(METHOD_COLUMNS, method) ? METHOD_COLUMNS[method] : null;
        const unread = reads ? DETAIL_COLUMNS.filter((c) => c !== "currency" && !reads.includes(c) && get(c)) : [];
        if (unread.length > 0) {
          refuse(
            `${unread.join(", ")}: not read for ${method}; leave blank (a name with an unquoted comma moves the ` +
              "cells after it)",
            playerId,
          );
          continue;
        }
        const fields: Record<string, string> = Object.fromEntries(
          (Object.keys(IMPORT_COLUMNS) as ImportColumn[]).map((c) => [IMPORT_COLUMNS[c], get(c)]),
        );
        const before = await getProfile(trx, { gameId: p.gameId, playerId });
        // A blank expiry leaves the one on file, for the same form.
        if (taxForm && fields.taxFormExpiresOn === "" && before?.taxForm === taxForm && before.taxFormExpiresOn)
          fields.taxFormExpiresOn = before.taxFormExpiresOn;
        const details = method ? payoutDetailsInputSchema.safeParse(fields) : null;
        const tax = taxForm ? taxFormInputSchema.safeParse(fields) : null;
        const problems = [details, tax].flatMap((r) => (r && !r.success ? [describeIssues(r.error, columnOf)] : []));
        if (problems.length > 0) {
          refuse(problems.join("; "), playerId);
          continue;
        }
        if (details?.success) {
          const outcome = await changePayoutDetailsIn(trx, { gameId: p.gameId, playerId, input: details.data }, acting);
          result.changes.push({
            line,
            playerId,
            kind: "details",
            effect: outcome.outcome,
            summary: `${outcome.masked} (${details.data.currency})`,
            previous: before?.detailsMasked ? `${before.detailsMasked} (${before.currency})` : null,
            displaced: outcome.displaced
              ? `${outcome.displaced.masked ?? "details"}, entered by ${outcome.displaced.enteredByEmail ?? "a job"}`
              : null,
          });
        }
        if (tax?.success) {
          const outcome = await setTaxFormIn(trx, { gameId: p.gameId, playerId, input: tax.data }, acting);
          result.changes.push({
            line,
            playerId,
            kind: "tax_form",
            effect: outcome.outcome,
            summary: taxFormText(tax.data.taxForm, tax.data.taxFormReceivedOn, tax.data.taxFormExpiresOn),
            previous: before ? taxFormText(before.taxForm, before.taxFormReceivedOn, before.taxFormExpiresOn) : null,
            displaced: null,
          });
        }
      }
      if (p.dryRun || result.refused.length > 0) throw new RollBack();
    });
    result.applied = true;
  } catch (error) {
    if (!(error instanceof RollBack)) throw error;
  }
  // A program's profiles imported at once: the window page's reads join them to every statement.
  if (result.applied) await refreshStatisticsAfterBulkWrite(db, PROFILE_TABLES, result.changes.length);
  return result;
}

/**
 * The profiles of a game as CSV (UTF-8 with a byte-order mark): masked details only (the last four characters), never
 * full bank details. Audited (`export.profiles`, the rows and the file's SHA-256), as every export is: once `deliver`
 * (writing the file, from the command line) has done its part, or as failed when it could not.
 */
export async function exportProfiles(
  db: Db,
  p: { gameId: string },
  acting: ActingAs,
  deliver: (csv: string) => Promise<void> = async () => {},
): Promise<{ csv: string; rows: number }> {
  const [profiles, pending] = await Promise.all([
    listProfiles(db, p),
    listProfileChanges(db, { gameId: p.gameId, status: "pending", limit: 100_000 }),
  ]);
  const pendingOf = new Map(pending.map((c) => [c.playerId, c]));
  const rows = profiles.map((r) => [
    String(r.playerId),
    r.method,
    r.currency,
    r.detailsMasked,
    r.taxForm,
    r.taxFormReceivedOn,
    r.taxFormExpiresOn,
    pendingOf.get(r.playerId)?.detailsMasked ?? null,
    r.updatedAt.toISOString(),
  ]);
  // A byte-order mark first: a spreadsheet then reads the masks' "•" and names beyond ASCII as written (the import
  // takes it back).
  const csv = `\uFEFF${writeCsv(EXPORT_COLUMNS, rows)}`;
  const sha256 = createHash("sha256").update(csv).digest("hex");
  const audit = { ...acting, action: "export.profiles", gameId: p.gameId, target: null };
  const detail = { rows: rows.length, bytes: Buffer.byteLength(csv), sha256 };
  try {
    await deliver(csv);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // The write's own error is the one said; an audit line that cannot be written either is logged.
    await recordAudit(db, { ...audit, outcome: "failed", detail: { ...detail, error: reason.slice(0, 300) } }).catch(
      (auditError: unknown) => log.error("profiles export audit entry not written", { error: auditError }),
    );
    throw error;
  }
  await recordAudit(db, { ...audit, outcome: "completed", detail });
  return { csv, rows: rows.length };
}
