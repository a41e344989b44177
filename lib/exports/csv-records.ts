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

function unterminated(): Error {
  return new Error("the database's CSV ends inside a record");
}

/**
 * PostgreSQL ends CSV records with LF; the files end them with CRLF (RFC 4180). A LF inside a quoted cell belongs to
 * the cell and stays as it is: a quote opens a cell's quoting and the next one closes it (an escaped quote `""`
 * closes and reopens it).
 */
export function crlfRecords(lf: Buffer): CsvRecords {
  const lineEnds: number[] = [];
  let at = 0;
  let quote = lf.indexOf(QUOTE);
  while (at < lf.length) {
    let end = lf.indexOf(LF, at);
    if (end === -1) throw unterminated();
    while (quote !== -1 && quote < end) {
      const close = lf.indexOf(QUOTE, quote + 1);
      if (close === -1) throw unterminated();
      if (close > end) {
        end = lf.indexOf(LF, close + 1);
        if (end === -1) throw unterminated();
      }
      quote = lf.indexOf(QUOTE, close + 1);
    }
    lineEnds.push(end);
    at = end + 1;
  }
  const bytes = Buffer.allocUnsafe(lf.length + lineEnds.length);
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
  return { kind: "csv-records", bytes, ends };
}
