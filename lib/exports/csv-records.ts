/**
 * Records of a CSV file already written, by PostgreSQL's `COPY … (FORMAT csv)`, handed on as they are: `bytes` holds
 * whole records ending in CRLF, `ends` the offset just past each one (to count the rows handed on).
 */
export type CsvRecords = { readonly kind: "csv-records"; bytes: Buffer; ends: number[] };

export function isCsvRecords(value: unknown): value is CsvRecords {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "csv-records";
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const COMMA = 0x2c;

function unterminated(): Error {
  return new Error("the database's CSV ends inside a record");
}

/**
 * PostgreSQL ends CSV records with LF; the files end them with CRLF (RFC 4180). A LF inside a quoted cell belongs to
 * the cell and stays as it is: a quote opens a cell's quoting and the next one closes it (an escaped quote `""`
 * closes and reopens it).
 */
export function crlfRecords(lf: Buffer): CsvRecords {
  const { records, rest } = crlfWholeRecords(lf);
  if (rest.length > 0) throw unterminated();
  return records;
}

/**
 * The whole records at the start of `lf` (output of COPY as it arrives, which may end inside a record) with CRLF
 * ends, as crlfRecords makes them, and the bytes after the last whole record (to be put before the next piece).
 */
export function crlfWholeRecords(lf: Buffer): { records: CsvRecords; rest: Buffer } {
  const lineEnds: number[] = [];
  let at = 0;
  let quote = lf.indexOf(QUOTE);
  records: while (at < lf.length) {
    let end = lf.indexOf(LF, at);
    if (end === -1) break;
    while (quote !== -1 && quote < end) {
      const close = lf.indexOf(QUOTE, quote + 1);
      if (close === -1) break records;
      if (close > end) {
        end = lf.indexOf(LF, close + 1);
        if (end === -1) break records;
      }
      quote = lf.indexOf(QUOTE, close + 1);
    }
    lineEnds.push(end);
    at = end + 1;
  }
  const whole = lineEnds.length === 0 ? 0 : (lineEnds.at(-1) as number) + 1;
  const bytes = Buffer.allocUnsafe(whole + lineEnds.length);
  const ends = new Array<number>(lineEnds.length);
  let from = 0;
  let to = 0;
  for (let i = 0; i < lineEnds.length; i++) {
    const end = lineEnds[i] as number;
    to += lf.copy(bytes, to, from, end);
    bytes[to++] = CR;
    bytes[to++] = LF;
    from = end + 1;
    ends[i] = to;
  }
  return { records: { kind: "csv-records", bytes, ends }, rest: lf.subarray(whole) };
}

/** The cell `index` (from 0) of the last record of `records`, unquoted; null when there is no record. */
export function lastRecordCell(records: CsvRecords, index: number): string | null {
  if (records.ends.length === 0) return null;
  const start = records.ends.length > 1 ? (records.ends.at(-2) as number) : 0;
  const record = records.bytes.subarray(start, (records.ends.at(-1) as number) - 2);
  let at = 0;
  for (let cell = 0; ; cell++) {
    let value: string;
    let next: number;
    if (record[at] === QUOTE) {
      let close = at;
      do close = record.indexOf(QUOTE, close + (close === at ? 1 : 2));
      while (close !== -1 && record[close + 1] === QUOTE);
      if (close === -1) throw unterminated();
      value = record.toString("utf8", at + 1, close).replaceAll('""', '"');
      next = close + 1;
    } else {
      const comma = record.indexOf(COMMA, at);
      next = comma === -1 ? record.length : comma;
      value = record.toString("utf8", at, next);
    }
    if (cell === index) return value;
    if (next >= record.length) throw new Error(`a record holds no cell ${index}`);
    at = next + 1;
  }
}
