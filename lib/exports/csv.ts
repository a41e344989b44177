import { Readable } from "node:stream";
import { stringify } from "csv-stringify";

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

export type ExportRow = Record<string, string | null>;

const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * OWASP "CSV Injection": a cell starting with = + - @, a tab or a carriage return can run as a formula, so it is
 * written with a leading apostrophe. A cell already starting with an apostrophe gets one too, so that reading is
 * unambiguous: drop one leading apostrophe from any text cell that has one and you have the original value.
 */
export function neutraliseText(value: string): string {
  switch (value.charCodeAt(0)) {
    case 61: // =
    case 43: // +
    case 45: // -
    case 64: // @
    case 9: // tab
    case 13: // carriage return
    case 39: // '
      return `'${value}`;
    default:
      return value;
  }
}

/** The inverse of neutraliseText, for readers of the file (and the tests). */
export function restoreText(cell: string): string {
  return cell.startsWith("'") ? cell.slice(1) : cell;
}

export class ExportValueError extends Error {}

function formatCell(column: ExportColumn, value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (column.type === "text") return neutraliseText(value);
  // Decimal columns are never prefixed (a negative amount stays -12.34), so they must hold plain decimals only.
  if (column.type === "decimal" && !DECIMAL.test(value)) {
    throw new ExportValueError(`column ${column.name} holds ${JSON.stringify(value.slice(0, 40))}, not a decimal number`);
  }
  return value;
}

export function formatRow(columns: readonly ExportColumn[], row: ExportRow): (string | null)[] {
  const out = new Array<string | null>(columns.length);
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i] as ExportColumn;
    out[i] = formatCell(column, row[column.name]);
  }
  return out;
}

/** Output is handed on in pieces of about this size rather than one tiny chunk per row. */
const OUTPUT_CHUNK_BYTES = 64 * 1024;

export type CsvOutput = {
  /** The bytes of the file, in order; ends when the last row is written, throws if reading a row failed. */
  chunks: AsyncGenerator<Buffer, void, undefined>;
  /** Rows written so far (the header excluded). */
  rows(): number;
};

/**
 * The CSV of `batches`, produced on demand. Rows are read one batch at a time, only when the consumer wants
 * more bytes, so memory holds about one batch whatever the size of the export; breaking out of `chunks` (a
 * cancelled download) stops the reading.
 */
export function csvOutput(columns: readonly ExportColumn[], batches: AsyncIterable<ExportRow[]>, options: { bom: boolean }): CsvOutput {
  const iterator = batches[Symbol.asyncIterator]();
  let rows = 0;
  let page: ExportRow[] = [];
  let index = 0;
  let fetching = false;
  // Rows are formatted and handed on only as fast as the writer takes them (push() says when to stop), so at
  // most one page of rows, and the page being fetched behind it, is held at any time.
  const fill = (): void => {
    while (index < page.length) {
      let cells: (string | null)[];
      try {
        cells = formatRow(columns, page[index++] as ExportRow);
      } catch (error) {
        source.destroy(error as Error);
        return;
      }
      rows++;
      if (!source.push(cells)) return;
    }
    if (fetching || source.destroyed) return;
    fetching = true;
    iterator.next().then(
      (next) => {
        fetching = false;
        if (next.done) {
          source.push(null);
          return;
        }
        page = next.value;
        index = 0;
        fill();
      },
      (error: unknown) => {
        fetching = false;
        source.destroy(error as Error);
      },
    );
  };
  const source = new Readable({
    objectMode: true,
    highWaterMark: 256,
    read: fill,
    destroy(error, callback) {
      // Stops the query loop: a download cancelled half way must not keep reading the database.
      Promise.resolve(iterator.return?.()).then(
        () => callback(error),
        () => callback(error),
      );
    },
  });
  const stringifier = stringify({
    header: true,
    columns: columns.map((c) => c.name),
    record_delimiter: "\r\n",
    bom: options.bom,
    readableHighWaterMark: OUTPUT_CHUNK_BYTES,
  });
  source.on("error", (error) => stringifier.destroy(error));
  source.pipe(stringifier);

  async function* chunks(): AsyncGenerator<Buffer, void, undefined> {
    let failure: Error | null = null;
    let ended = false;
    let wake: (() => void) | null = null;
    const signal = () => {
      const resume = wake;
      wake = null;
      resume?.();
    };
    const onError = (error: Error) => {
      failure ??= error;
      signal();
    };
    const onEnd = () => {
      ended = true;
      signal();
    };
    stringifier.on("readable", signal);
    stringifier.on("end", onEnd);
    stringifier.on("error", onError);
    try {
      while (true) {
        if (failure) throw failure;
        // read() without a size hands over everything buffered at once: one write per ~64 KB, not per row.
        const chunk = stringifier.read() as Buffer | null;
        if (chunk !== null) {
          yield chunk;
          continue;
        }
        if (ended || stringifier.readableEnded) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    } finally {
      stringifier.off("readable", signal);
      stringifier.off("end", onEnd);
      stringifier.off("error", onError);
      if (!stringifier.readableEnded) {
        source.destroy();
        stringifier.destroy();
      }
    }
  }

  return { chunks: chunks(), rows: () => rows };
}
