import { stringify } from "csv-stringify";
import { stringify as stringifySync } from "csv-stringify/sync";
import { type CsvRecords, isCsvRecords } from "./csv-records";

/**
 * How every CSV the desk writes ends its rows and quotes its cells: CRLF, and any cell holding a CR or an LF alone
 * quoted too (csv-stringify quotes only a whole CRLF by itself), so a line break inside a name never starts a row.
 */
export const CSV_WRITE = { record_delimiter: "\r\n", quoted_match: /[\r\n]/ } as const;

/**
 * How a CSV export is written: a header row, RFC 4180 quoting (csv-stringify), CRLF line ends, UTF-8 with an
 * optional byte-order mark. Every cell arrives as text (the SQL casts numeric, ids and booleans to text and
 * formats instants), so no value passes through a JS number on its way to the file.
 */

/**
 * text: anything a person or the service typed (names, emails, ids, states); neutralised against formulas.
 * decimal: amounts and rates straight from `numeric::text`; written as is, so a spreadsheet reads a number.
 * integer, instant, date, boolean: produced by our own code (digits, ISO 8601 UTC instants and dates,
 * true/false); written as is.
 */
export type CellType = "text" | "decimal" | "integer" | "instant" | "date" | "boolean";

export type ExportColumn = {
  /** The header of the column and the key of the row object the query returns. */
  name: string;
  type: CellType;
  /** One line for the README. */
  description: string;
};

/**
 * A row of an export: an object keyed by column name, or the cells themselves in column order (what the largest
 * exports read, to spare an object per row; formatRow then works on that array in place).
 */
export type ExportRow = Record<string, string | null> | (string | null)[];

const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A semicolon followed by = + - @, a tab, a carriage return or an apostrophe is given an apostrophe after it: a
 * spreadsheet set to a comma-decimal locale splits cells on semicolons, so `Bob;=HYPERLINK(…)` would open as a cell
 * starting a formula, quoted or not. Reversed by dropping the apostrophe right after any semicolon that has one before
 * one of those characters.
 */
function neutraliseAfterSemicolons(value: string): string {
  return value.includes(";") ? value.replace(AFTER_SEMICOLON, ";'") : value;
}

const AFTER_SEMICOLON = /;(?=[=+\-@\t\r'])/g;

/**
 * OWASP "CSV Injection": a cell starting with = + - @, a tab or a carriage return can run as a formula, so it is
 * written with a leading apostrophe. A cell already starting with an apostrophe gets one too, so that reading is
 * unambiguous: drop one leading apostrophe from any text cell that has one and you have the original value. The
 * same after a semicolon inside the cell (neutraliseAfterSemicolons).
 */
export function neutraliseText(value: string): string {
  const inner = neutraliseAfterSemicolons(value);
  switch (value.charCodeAt(0)) {
    case 61: // =
    case 43: // +
    case 45: // -
    case 64: // @
    case 9: // tab
    case 13: // carriage return
    case 39: // '
      return `'${inner}`;
    default:
      return inner;
  }
}

/** The inverse of neutraliseText, for readers of the file (and the tests). */
export function restoreText(cell: string): string {
  const inner = cell.startsWith("'") ? cell.slice(1) : cell;
  return inner.includes(";'") ? inner.replace(/;'(?=[=+\-@\t\r'])/g, ";") : inner;
}

export class ExportValueError extends Error {}

function formatCell(column: ExportColumn, value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (column.type === "text") return neutraliseText(value);
  // Decimal columns are never prefixed (a negative amount stays -12.34), so they must hold plain decimals only.
  if (column.type === "decimal" && !DECIMAL.test(value)) {
    throw new ExportValueError(
      `column ${column.name} holds ${JSON.stringify(value.slice(0, 40))}, not a decimal number`,
    );
  }
  return value;
}

export function formatRow(columns: readonly ExportColumn[], row: ExportRow): (string | null)[] {
  if (Array.isArray(row)) {
    if (row.length !== columns.length)
      throw new ExportValueError(`a row holds ${row.length} cells for ${columns.length} columns`);
    for (let i = 0; i < columns.length; i++) row[i] = formatCell(columns[i] as ExportColumn, row[i]);
    return row;
  }
  const out = new Array<string | null>(columns.length);
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i] as ExportColumn;
    out[i] = formatCell(column, row[column.name]);
  }
  return out;
}

/** Output is handed on in pieces of at most this size. */
const OUTPUT_CHUNK_BYTES = 64 * 1024;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The byte-order mark (if asked for) and the header row, as the CSV writer begins a file. */
function headerBytes(columns: readonly ExportColumn[], bom: boolean): Buffer {
  const header = Buffer.from(stringifySync([columns.map((c) => c.name)], CSV_WRITE));
  return bom ? Buffer.concat([BOM, header]) : header;
}

export type CsvOutput = {
  /** The bytes of the file, in order; ends when the last row is written, throws if reading a row failed. */
  chunks: AsyncGenerator<Buffer, void, undefined>;
  /** Rows written so far (the header excluded). */
  rows(): number;
};

/**
 * The CSV of `batches`, produced on demand. Each batch is formatted and encoded as soon as it arrives, so its rows
 * die young and only its bytes wait for the reader: memory holds about one batch of rows and its bytes, whatever
 * the size of the export. Nothing more is read until the reader has taken those bytes; breaking out of `chunks`
 * (a cancelled download) stops the reading.
 */
export function csvOutput(
  columns: readonly ExportColumn[],
  batches: AsyncIterable<ExportRow[] | CsvRecords>,
  options: { bom: boolean },
): CsvOutput {
  let rows = 0;

  /** Written records in pieces of at most OUTPUT_CHUNK_BYTES, each row counted once its end is handed on. */
  const handOn = function* (records: CsvRecords): Generator<Buffer, void, undefined> {
    const { bytes, ends } = records;
    let next = 0;
    let counted = 0;
    for (let at = 0; at < bytes.length; at += OUTPUT_CHUNK_BYTES) {
      const to = Math.min(at + OUTPUT_CHUNK_BYTES, bytes.length);
      while (next < ends.length && (ends[next] as number) <= to) next++;
      rows += next - counted;
      counted = next;
      yield bytes.subarray(at, to);
    }
  };

  async function* chunks(): AsyncGenerator<Buffer, void, undefined> {
    const stringifier = stringify({
      header: true,
      columns: columns.map((c) => c.name),
      ...CSV_WRITE,
      bom: options.bom,
      // Never full: a batch's output stays buffered until take() hands all of it on, so a write never waits.
      readableHighWaterMark: Number.MAX_SAFE_INTEGER,
    });
    let failure: Error | null = null;
    stringifier.on("error", (error) => {
      failure ??= error;
    });
    const take = function* (): Generator<Buffer, void, undefined> {
      if (failure) throw failure;
      const buffered = stringifier.read() as Buffer | null;
      if (buffered === null) return;
      for (let at = 0; at < buffered.length; at += OUTPUT_CHUNK_BYTES)
        yield buffered.subarray(at, at + OUTPUT_CHUNK_BYTES);
    };
    // A file is written either from rows or from records PostgreSQL wrote (then its header is written here).
    let from: "rows" | "records" | null = null;
    try {
      for await (const batch of batches) {
        if (isCsvRecords(batch)) {
          if (from === "rows") throw new ExportValueError("an export gave rows, then written records");
          if (from === null) yield headerBytes(columns, options.bom);
          from = "records";
          yield* handOn(batch);
          continue;
        }
        if (from === "records") throw new ExportValueError("an export gave written records, then rows");
        from = "rows";
        for (let i = 0; i < batch.length; i++) {
          stringifier.write(formatRow(columns, batch[i] as ExportRow));
          rows++;
        }
        yield* take();
      }
      if (from === "records") return;
      // Ending writes what is left, and the header of an export without rows. An error raised before would
      // leave end() waiting for ever, so it is thrown first; one raised while ending rejects.
      if (failure) throw failure;
      await new Promise<void>((resolve, reject) => {
        stringifier.once("error", reject);
        stringifier.end(() => resolve());
      });
      yield* take();
    } finally {
      stringifier.destroy();
    }
  }

  return { chunks: chunks(), rows: () => rows };
}
