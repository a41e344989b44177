import "server-only";
import { parse } from "csv-parse/sync";

/**
 * CSV as providers read and write it: RFC 4180 (a cell holding a comma, a double quote or a line break is quoted,
 * quotes doubled), CRLF line ends, UTF-8 without a byte-order mark on what we write; a BOM, CRLF or LF, and
 * columns we do not know are all tolerated on what we read.
 */

/** Free text a person typed (names, notes) must never start a spreadsheet formula (OWASP "CSV Injection"); a
 * provider passes the text on to the recipient, so leading = + - @ tab and CR are dropped rather than escaped. */
export function plainText(value: string): string {
  return value.replace(/^[=+\-@\t\r]+/, "").replace(/[\r\n]+/g, " ");
}

function cell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function csvLine(cells: readonly string[]): string {
  let line = "";
  for (let i = 0; i < cells.length; i++) line += (i === 0 ? "" : ",") + cell(cells[i] as string);
  return `${line}\r\n`;
}

export type CsvRecord = { line: number; cells: string[] };

/** Why a text is not CSV, without its cells: the tokenizer's message quotes a cell, which may be a bank detail. */
export class CsvUnreadableError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
  ) {
    super(`${reason} on line ${line}`);
  }
}

/**
 * Tokenises a whole CSV text; throws a CsvUnreadableError (what and where, never a cell) when it is not CSV. A record's
 * line is the one it ends on. `strict`: a record may not have more cells than the first (the header), where a cell
 * would have slipped into the next column, and a record of empty cells is skipped.
 */
export function readCsv(text: string, options: { strict?: boolean } = {}): CsvRecord[] {
  refuseOtherEncodings(text, options.strict === true);
  const records = tokenise(text, options);
  // A spreadsheet in a comma-decimal locale saves "CSV" separated by semicolons (or tabs): one cell a row.
  const first = records[0]?.cells;
  if (first?.length === 1 && /[;\t]/.test(first[0] ?? ""))
    throw new CsvUnreadableError(
      `cells separated by ${(first[0] ?? "").includes(";") ? "semicolons" : "tabs"}, not commas (save it as CSV ` +
        "with commas)",
      records[0]?.line ?? 1,
    );
  return records;
}

/**
 * Text read from a file that is not UTF-8 (Windows-1252 from a spreadsheet, UTF-16) holds replacement characters or
 * NULs where its letters were: read on, names would be stored and paid with their letters lost, unseen. A strict
 * file (names and bank details) is refused for either; a provider's results, whose references, outcomes and amounts
 * are ASCII, only when NULs say it is UTF-16 (a reason in Windows-1252 is read with its accents lost).
 */
function refuseOtherEncodings(text: string, strict: boolean): void {
  const replaced = strict ? text.indexOf("\uFFFD") : -1;
  const nul = text.indexOf("\u0000");
  const at = replaced < 0 ? nul : nul < 0 ? replaced : Math.min(replaced, nul);
  if (at < 0) return;
  const line = text.slice(0, at).split("\n").length;
  const what = text[at] === "\u0000" ? "UTF-16 text" : "text that is not UTF-8";
  throw new CsvUnreadableError(`${what} (save the file as CSV UTF-8)`, line);
}

function tokenise(text: string, options: { strict?: boolean }): CsvRecord[] {
  try {
    const records = parse(text, {
      bom: true,
      info: true,
      ...(options.strict ? { relax_column_count_less: true, skip_records_with_empty_values: true } : {}),
      relax_column_count: !options.strict,
      skip_empty_lines: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
    return records.map(({ record, info }) => ({ line: info.lines, cells: record }));
  } catch (error) {
    const { code, lines } = error as { code?: unknown; lines?: unknown };
    const reason =
      typeof code === "string" && /^(CSV_)?[A-Z_]+$/.test(code)
        ? code.replace(/^CSV_/, "").toLowerCase().replaceAll("_", " ")
        : "unreadable text";
    throw new CsvUnreadableError(reason, typeof lines === "number" ? lines : 0);
  }
}

/** Maps header names (trimmed, compared case-insensitively) to column indexes; unknown headers are ignored. */
export function headerIndex(
  header: readonly string[],
  aliases: Record<string, readonly string[]>,
): Map<string, number> {
  const byName = new Map<string, number>();
  header.forEach((name, index) => {
    const key = name.trim().toLowerCase();
    if (!byName.has(key)) byName.set(key, index);
  });
  const found = new Map<string, number>();
  for (const [field, names] of Object.entries(aliases)) {
    for (const name of names) {
      const index = byName.get(name.toLowerCase());
      if (index !== undefined) {
        found.set(field, index);
        break;
      }
    }
  }
  return found;
}
