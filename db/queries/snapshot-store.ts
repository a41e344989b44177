import "server-only";
import { type Insertable, sql } from "kysely";
import type pg from "pg";
import type { DbOrTrx, Trx } from "@/db";
import type { SnapshotTable } from "@/db/types";
import type { TimeWindow } from "@/core/time";
import { copyIn } from "./copy";
import { lockForTransaction } from "./locks";
import { BULK_TABLE_COLUMNS, type BulkTable, type ColumnType } from "./snapshot-columns";
import { UUID } from "@/core/uuid";

/**
 * Writes of a published snapshot, all inside the publishing transaction, and the reads of the previous version that
 * drift compares with. The published tables refuse UPDATE and DELETE.
 */

/** A row of a published table as built for writing: column name -> JSON value. */
export type StoredRow = Record<string, string | number | boolean | null | Record<string, unknown>>;

const CHUNK_ROWS = 4_000;

/**
 * A one-dimensional array literal of text elements, each quoted unless it reads back the same without quotes (so
 * that an empty string, the word NULL, commas, braces or spaces are read as text), with null as NULL. PostgreSQL then
 * reads every element with the input function of the array's type, exactly as it would read a single parameter:
 * amounts stay the decimal text the service sent.
 */
export function arrayLiteral(values: readonly (string | null)[]): string {
  return arrayLiteralOf(values, (value) => value);
}

/**
 * An element PostgreSQL reads back exactly as written without quotes: no brace, comma, quote, backslash or space (an
 * unquoted element is trimmed and split there), and not the word NULL in any case (checked apart). Amounts, ids and
 * instants, most of a snapshot's cells, are written as they are instead of as a quoted copy.
 */
const BARE_ELEMENT = /^[^{}",\\\s]+$/;

/**
 * The array literal of `text(item)` for every item. The elements are joined once: a string grown element by element is
 * a chain of as many pieces, each a small object that lives until the statement is sent (the chains of a thousand
 * lines' columns outlived collections of the young generation, which copied them).
 */
export function arrayLiteralOf<T>(items: readonly T[], text: (item: T) => string | null | undefined): string {
  const elements = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) {
    const value = text(items[i] as T);
    if (value === null || value === undefined) elements[i] = "NULL";
    else if (BARE_ELEMENT.test(value) && !(value.length === 4 && value.toUpperCase() === "NULL")) elements[i] = value;
    // Inside quotes only a double quote and a backslash need escaping.
    else if (value.includes('"') || value.includes("\\"))
      elements[i] = `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
    else elements[i] = `"${value}"`;
  }
  return `{${elements.join(",")}}`;
}

function elementText(value: StoredRow[string] | undefined, type: ColumnType): string | null {
  if (value === null || value === undefined) return null;
  if (type === "jsonb" || typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/**
 * Many rows in one statement per chunk: each column travels as one array literal and unnest turns the arrays back
 * into rows. Against one JSON document per chunk (json_to_recordset) this spares building, sending and parsing the
 * column names of every row.
 */
export async function bulkInsertSnapshotRows(
  trx: Trx,
  table: BulkTable,
  snapshotId: string,
  rows: readonly StoredRow[],
): Promise<void> {
  const columns: Record<string, ColumnType> = BULK_TABLE_COLUMNS[table];
  const names = Object.keys(columns);
  const list = sql.join(names.map((name) => sql.ref(name)));
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    const chunk = rows.slice(start, start + CHUNK_ROWS);
    const arrays = names.map((name) => {
      const type = columns[name] as ColumnType;
      const literal = arrayLiteralOf(chunk, (row) => elementText(row[name], type));
      return sql`${literal}::${sql.raw(type)}[]`;
    });
    await sql`insert into ${sql.table(table)} (snapshot_id, ${list})
      select ${snapshotId}::uuid, * from unnest(${sql.join(arrays)})`.execute(trx);
  }
}

export type StoredPage = {
  seq: number;
  window: TimeWindow;
  recipientPlayerId: number | null;
  offset: number;
  limit: number;
  fetchedAt: Date;
  /**
   * The body as the service sent it: its bytes (sent to PostgreSQL as they are: UTF-8, lib/service/body.ts), or its
   * text.
   */
  body: Buffer | string;
};

const PAGE_COLUMNS =
  "snapshot_id, seq, window_start, window_end, recipient_player_id, page_offset, page_limit, fetched_at, body";
/** The start of COPY's binary format (its signature, no flags, no header extension), and its end (a count of -1). */
const BINARY_HEADER = Buffer.concat([Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)]);
const BINARY_TRAILER = Buffer.from([0xff, 0xff]);
/** PostgreSQL's binary timestamps count microseconds from 2000-01-01 UTC. */
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);

/** A page's fields but its body, in COPY's binary format, ending with the body's length (its bytes follow). */
function pageFields(snapshotId: string, page: StoredPage, bodyBytes: number): Buffer {
  const out = Buffer.alloc(2 + (4 + 16) + 3 * (4 + 4) + 4 * (4 + 8) + 4);
  let at = out.writeInt16BE(9, 0);
  const int4 = (value: number) => {
    at = out.writeInt32BE(4, at);
    at = out.writeInt32BE(value, at);
  };
  const int8 = (value: bigint | null) => {
    if (value === null) at = out.writeInt32BE(-1, at);
    else at = out.writeBigInt64BE(value, out.writeInt32BE(8, at));
  };
  const instant = (ms: number) => int8(BigInt(ms - POSTGRES_EPOCH_MS) * 1000n);
  at = out.writeInt32BE(16, at);
  at += out.write(snapshotId.replace(/-/g, ""), at, "hex");
  int4(page.seq);
  instant(page.window.startMs);
  instant(page.window.endMs);
  int8(page.recipientPlayerId === null ? null : BigInt(page.recipientPlayerId));
  int4(page.offset);
  int4(page.limit);
  instant(page.fetchedAt.getTime());
  at = out.writeInt32BE(bodyBytes, at);
  return out.subarray(0, at);
}

/**
 * Writes pages by one `COPY … FROM STDIN` in binary on the publishing transaction's connection: each body goes to
 * PostgreSQL as the bytes received, which a text column takes as UTF-8 (and refuses if they are not), copied once
 * here into the statement's data (as a statement's parameter it was copied four times over).
 */
export async function copySnapshotPages(
  connection: pg.PoolClient,
  snapshotId: string,
  pages: readonly StoredPage[],
): Promise<void> {
  if (!UUID.test(snapshotId)) throw new Error(`not a snapshot id: ${snapshotId}`);
  const pieces: Buffer[] = [BINARY_HEADER];
  for (const page of pages) {
    const body = typeof page.body === "string" ? Buffer.from(page.body) : page.body;
    pieces.push(pageFields(snapshotId, page, body.length), body);
  }
  pieces.push(BINARY_TRAILER);
  await copyIn(connection, `copy snapshot_page (${PAGE_COLUMNS}) from stdin (format binary)`, Buffer.concat(pieces));
}

/**
 * Voids rows written for a snapshot that is not yet published (only its own transaction sees them; the tables refuse
 * this once the snapshot row exists): the pages after `afterSeq`, the lines of `periodIds`, and with `recipients`
 * every recipient, reversal and refund event.
 */
export async function deleteUnpublishedRows(
  trx: Trx,
  snapshotId: string,
  params: { afterSeq: number; periodIds: readonly (string | number)[]; recipients: boolean },
): Promise<void> {
  await trx
    .deleteFrom("snapshot_page")
    .where("snapshot_id", "=", snapshotId)
    .where("seq", ">", params.afterSeq)
    .execute();
  if (params.periodIds.length > 0) {
    const ids = arrayLiteralOf(params.periodIds, (id) => String(id));
    await sql`delete from snapshot_line where snapshot_id = ${snapshotId}
      and period_id = any(${ids}::bigint[])`.execute(trx);
  }
  if (!params.recipients) return;
  for (const table of ["snapshot_refund_event", "snapshot_reversal", "snapshot_recipient"] as const)
    await trx.deleteFrom(table).where("snapshot_id", "=", snapshotId).execute();
}

/** The newest published version of a window, if any. */
export async function findLatestVersion(
  db: DbOrTrx,
  params: { gameId: string; window: TimeWindow },
): Promise<{ id: string; version: number; windowClosed: boolean } | null> {
  const row = await db
    .selectFrom("snapshot")
    .select(["id", "version", "window_closed"])
    .where("game_id", "=", params.gameId)
    .where("window_start", "=", new Date(params.window.startMs))
    .where("window_end", "=", new Date(params.window.endMs))
    .orderBy("version", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? { id: row.id, version: row.version, windowClosed: row.window_closed } : null;
}

/** A timestamptz column as formatInstant writes it: whole seconds with Z, otherwise milliseconds too. */
export function instantText(column: string, alias = column) {
  const utc = sql`${sql.ref(column)} at time zone 'UTC'`;
  return sql`to_char(${utc}, 'YYYY-MM-DD"T"HH24:MI:SS') || case when to_char(${utc}, 'MS') = '000' then 'Z'
    else '.' || to_char(${utc}, 'MS') || 'Z' end`.as(alias);
}

export async function readSnapshotTotals(db: DbOrTrx, snapshotId: string): Promise<Record<string, unknown>> {
  const row = await db.selectFrom("snapshot").selectAll().where("id", "=", snapshotId).executeTakeFirstOrThrow();
  return row as unknown as Record<string, unknown>;
}

/**
 * Some columns of a snapshot's rows in one of its tables; the columns in `instants` as formatInstant text. Reading
 * and decoding tens of thousands of rows runs beside the next pull's fetch, and a Date per instant, parsed then
 * formatted again, costs more than this.
 */
export async function readSnapshotColumns(
  db: DbOrTrx,
  params: { table: BulkTable; snapshotId: string; columns: readonly string[]; instants: ReadonlySet<string> },
): Promise<StoredRow[]> {
  const selected = params.columns.map((column) =>
    params.instants.has(column) ? instantText(column) : sql.ref(column),
  );
  const result = await sql<StoredRow>`select ${sql.join(selected)}
    from ${sql.table(params.table)} where snapshot_id = ${params.snapshotId}`.execute(db);
  return result.rows;
}

/**
 * The next version number of a window. Takes a lock on the window until the transaction ends, so that publishers of
 * one window number their versions without gaps or clashes.
 */
export async function nextSnapshotVersion(trx: Trx, params: { gameId: string; window: TimeWindow }): Promise<number> {
  const { gameId, window } = params;
  await lockForTransaction(trx, `snapshot-version|${gameId}|${window.startMs}|${window.endMs}`);
  const latest = await trx
    .selectFrom("snapshot")
    .select((eb) => eb.fn.max("version").as("version"))
    .where("game_id", "=", gameId)
    .where("window_start", "=", new Date(window.startMs))
    .where("window_end", "=", new Date(window.endMs))
    .executeTakeFirst();
  return (latest?.version ?? 0) + 1;
}

export async function insertSnapshot(trx: Trx, values: Insertable<SnapshotTable>): Promise<void> {
  await trx.insertInto("snapshot").values(values).execute();
}

/** A renewal line of two versions where they differ: either side is null when that version lacks the line. */
export type DifferingLine = { periodId: string; previous: StoredRow | null; current: StoredRow | null };

/**
 * The renewal lines of two versions of a window that differ in any of `columns` or that only one of them has, at most
 * `limit` from the period after `after` on, in period order: PostgreSQL compares them where both already are, so
 * that nobody holds a version's lines to compare them. Values equal to PostgreSQL (numeric, timestamptz and jsonb
 * equality) are equal to drift too; what differs here is compared again by drift's own rules. The lines of `currentId`
 * may be unpublished rows of the caller's transaction.
 */
export async function readDifferingLines(
  db: DbOrTrx,
  params: {
    previousId: string;
    currentId: string;
    columns: readonly string[];
    instants: ReadonlySet<string>;
    after: string | null;
    limit: number;
  },
): Promise<DifferingLine[]> {
  const { previousId, currentId, columns, instants, limit } = params;
  const side = (alias: "p" | "c") =>
    columns.map((column) =>
      instants.has(column)
        ? instantText(`${alias}.${column}`, `${alias}_${column}`)
        : sql.ref(`${alias}.${column}`).as(`${alias}_${column}`),
    );
  const values = (alias: "p" | "c") => sql.join(columns.map((column) => sql.ref(`${alias}.${column}`)));
  const after = params.after ?? "-9223372036854775808";
  // Lines of the current version that changed or are new, then lines of the previous one that are gone.
  const { rows: changed } = await sql<Record<string, unknown>>`
    select c.period_id::text as period_id, p.period_id is not null as p_present, ${sql.join(side("p"))},
      ${sql.join(side("c"))}
    from snapshot_line c
    left join snapshot_line p on p.snapshot_id = ${previousId} and p.period_id = c.period_id
    where c.snapshot_id = ${currentId} and c.period_id > ${after}::bigint
      and (p.period_id is null or row(${values("p")}) is distinct from row(${values("c")}))
    order by c.period_id limit ${limit}`.execute(db);
  const { rows: gone } = await sql<Record<string, unknown>>`
    select p.period_id::text as period_id, ${sql.join(side("p"))} from snapshot_line p
    where p.snapshot_id = ${previousId} and p.period_id > ${after}::bigint
      and not exists (select from snapshot_line c where c.snapshot_id = ${currentId} and c.period_id = p.period_id)
    order by p.period_id limit ${limit}`.execute(db);
  const pick = (row: Record<string, unknown>, alias: "p" | "c") =>
    Object.fromEntries(columns.map((column) => [column, row[`${alias}_${column}`]])) as StoredRow;
  const lines: DifferingLine[] = [
    ...changed.map((row) => ({
      periodId: row.period_id as string,
      previous: row.p_present ? pick(row, "p") : null,
      current: pick(row, "c"),
    })),
    ...gone.map((row) => ({ periodId: row.period_id as string, previous: pick(row, "p"), current: null })),
  ];
  return lines.sort((a, b) => (BigInt(a.periodId) < BigInt(b.periodId) ? -1 : 1)).slice(0, limit);
}
