import "server-only";
import { sql, type Transaction } from "kysely";
import type { Db } from "@/db";
import type { Database, SnapshotDriftStatus } from "@/db/types";
import { recordAudit } from "@/lib/audit";
import { formatInstant, parseInstant, type TimeWindow } from "@/lib/time";
import {
  COMPARED_COLUMNS,
  type ComparableVersion,
  INSTANT_COLUMNS,
  compareVersions,
  createDriftComparer,
  type DriftComparer,
  type DriftEntry,
} from "./drift";
import type { FetchedWindow, PageRecord } from "./fetch";
import type { Check } from "./merge";
import type { AttributionRecipient } from "@/lib/service/schemas";
import { arrayLiteralOf, buildRecipientRows, buildRows, type Row, type SnapshotRows, totalsColumns } from "./rows";

/**
 * Publishing: the whole snapshot (header, recipients, lines, reversals, refund events, raw pages, sub-windows and the
 * drift found against the previous version) is written in one transaction together with the pull's "complete"
 * status. Until that commit nothing of the pull is visible (a killed pull's transaction is rolled back by the
 * server); after it, nothing of it changes (the tables refuse UPDATE and DELETE).
 */

type ColumnType = "text" | "integer" | "bigint" | "numeric" | "boolean" | "timestamptz" | "jsonb" | "uuid";

const RECIPIENT_COLUMNS: Record<string, ColumnType> = {
  recipient_player_id: "bigint",
  service_rank: "integer",
  resolved: "boolean",
  player_email: "text",
  player_name: "text",
  identity_id: "text",
  renewal_count: "integer",
  subscription_count: "integer",
  reversal_count: "integer",
  gross_attributed_usd: "numeric",
  reversed_attributed_usd: "numeric",
  net_attributed_usd: "numeric",
  first_paid_at: "timestamptz",
  last_paid_at: "timestamptz",
};

const LINE_COLUMNS: Record<string, ColumnType> = {
  period_id: "bigint",
  recipient_player_id: "bigint",
  subscription_id: "text",
  period_seq: "integer",
  item_id: "text",
  item_name: "text",
  status: "text",
  period_start: "timestamptz",
  period_end: "timestamptz",
  paid_at: "timestamptz",
  amount_usd: "numeric",
  invo_fee_usd: "numeric",
  partner_revenue_usd: "numeric",
  partner_revenue_settled_usd: "numeric",
  partner_revenue_reversed_usd: "numeric",
  partner_leg_reversed: "boolean",
  percent_at_renewal: "numeric",
  base_usd: "numeric",
  attributed_amount_usd: "numeric",
  attribution_unavailable_reason: "text",
  transaction_id: "text",
  mint_order_id: "text",
  funding: "jsonb",
  refund: "jsonb",
  reconciliation: "jsonb",
};

const REVERSAL_COLUMNS: Record<string, ColumnType> = {
  period_id: "bigint",
  recipient_player_id: "bigint",
  subscription_id: "text",
  period_seq: "integer",
  status: "text",
  paid_at: "timestamptz",
  settled_in_this_window: "boolean",
  amount_usd: "numeric",
  originally_attributed_usd: "numeric",
  refunded_to_date_usd: "numeric",
  latest_refund_at: "timestamptz",
  reversed_attributed_usd: "numeric",
  partner_revenue_reversed_usd: "numeric",
  reversal_basis: "text",
  nets_to_zero_in_window: "boolean",
  note: "text",
  event_count: "integer",
};

const EVENT_COLUMNS: Record<string, ColumnType> = {
  period_id: "bigint",
  seq: "integer",
  refunded_at: "timestamptz",
  refunded_amount_usd: "numeric",
  cumulative_refunded_before_usd: "numeric",
  cumulative_refunded_after_usd: "numeric",
  reversed_attributed_usd: "numeric",
  partner_revenue_reversed_usd: "numeric",
  partner_revenue_reversal_basis: "text",
  is_full_refund: "boolean",
};

const SUB_WINDOW_COLUMNS: Record<string, ColumnType> = {
  seq: "integer",
  scope: "text",
  recipient_player_id: "bigint",
  window_start: "timestamptz",
  window_end: "timestamptz",
  depth: "integer",
  reason: "text",
  pages: "integer",
};

const DRIFT_COLUMNS: Record<string, ColumnType> = {
  seq: "integer",
  previous_snapshot_id: "uuid",
  severity: "text",
  entity: "text",
  entity_key: "text",
  field: "text",
  previous_value: "text",
  current_value: "text",
};

/** Enough to show what moved; the count on the snapshot says how many there were in all. */
export const MAX_DRIFT_ROWS = 5_000;
const CHUNK_ROWS = 4_000;
const PAGES_PER_STATEMENT = 10;

function elementText(value: Row[string] | undefined, type: ColumnType): string | null {
  if (value === null || value === undefined) return null;
  if (type === "jsonb" || typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/**
 * Many rows in one statement per chunk: each column travels as one array literal and unnest turns the arrays back
 * into rows. Against one JSON document per chunk (json_to_recordset) this spares building, sending and parsing the
 * column names of every row.
 */
async function bulkInsert(
  trx: Transaction<Database>,
  table: string,
  snapshotId: string,
  columns: Record<string, ColumnType>,
  rows: readonly Row[],
): Promise<void> {
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

function iso(text: string): string {
  const ms = parseInstant(text);
  if (ms === null) throw new Error(`not a timestamp: ${text}`);
  return formatInstant(ms);
}

async function insertRows(trx: Transaction<Database>, snapshotId: string, rows: SnapshotRows): Promise<void> {
  await bulkInsert(trx, "snapshot_recipient", snapshotId, RECIPIENT_COLUMNS, rows.recipients);
  await bulkInsert(trx, "snapshot_line", snapshotId, LINE_COLUMNS, rows.lines);
  await bulkInsert(trx, "snapshot_reversal", snapshotId, REVERSAL_COLUMNS, rows.reversals);
  await bulkInsert(trx, "snapshot_refund_event", snapshotId, EVENT_COLUMNS, rows.events);
}

async function insertPages(
  trx: Transaction<Database>,
  snapshotId: string,
  pages: readonly PageRecord[],
): Promise<void> {
  // Bodies go in as plain text parameters: wrapping megabytes of JSON text in another JSON document costs more.
  for (let start = 0; start < pages.length; start += PAGES_PER_STATEMENT) {
    await trx
      .insertInto("snapshot_page")
      .values(
        pages.slice(start, start + PAGES_PER_STATEMENT).map((page) => ({
          snapshot_id: snapshotId,
          seq: page.seq,
          window_start: new Date(page.window.startMs),
          window_end: new Date(page.window.endMs),
          recipient_player_id: page.recipientPlayerId,
          page_offset: page.offset,
          page_limit: page.limit,
          fetched_at: page.fetchedAt,
          body: page.body,
        })),
      )
      .execute();
  }
}

/**
 * Writes raw pages and final recipients (with their lines, reversals and refund events) inside the publishing
 * transaction while the next pages are still being read, so that storing overlaps fetching. Nothing is visible
 * before the commit; a read that starts over rolls everything written back to a savepoint.
 *
 * Given the previous version of the window, it also compares each page's rows with it as they come, so that
 * publishing only has the totals left to compare.
 */
export type RowWriter = {
  addRecipients(recipients: readonly AttributionRecipient[]): void;
  addPage(page: PageRecord): void;
  /** Compares every row written, before and after this call, with this version. */
  compareWith(previous: ComparableVersion): void;
  /** Drops everything written, then writes `keep` again (the pages still part of the read). */
  reset(keep?: readonly PageRecord[]): Promise<void>;
  /**
   * Waits for every queued write; returns what was written: counts, and the recipients with the rows built from them
   * and their comparison (so that publishing need not build or compare them again). Rethrows a failed write.
   */
  flush(): Promise<{ recipients: number; pages: number; written: WrittenRecipients }>;
};

export type WrittenRecipients = {
  recipients: readonly AttributionRecipient[];
  rows: SnapshotRows;
  drift: { previous: ComparableVersion; comparer: DriftComparer } | null;
};

function emptyRows(): SnapshotRows {
  return { recipients: [], lines: [], reversals: [], events: [] };
}

function appendRows(into: SnapshotRows, more: SnapshotRows): void {
  for (const key of ["recipients", "lines", "reversals", "events"] as const) {
    for (const row of more[key]) into[key].push(row);
  }
}

/**
 * Resolves on the next turn of the event loop. Work queued while a page is being read waits for it, so that the
 * request for the next page leaves first and the service works on it while this process stores the last one.
 */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export async function createRowWriter(trx: Transaction<Database>, snapshotId: string): Promise<RowWriter> {
  await sql`savepoint snapshot_rows`.execute(trx);
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown = null;
  let given: AttributionRecipient[] = [];
  let built = emptyRows();
  let previous: ComparableVersion | null = null;
  let comparer: DriftComparer | null = null;
  let pages = 0;
  const queue = (work: () => Promise<void>) => {
    chain = chain.then(work).catch((error: unknown) => {
      failure ??= error;
    });
  };
  const writer: RowWriter = {
    addRecipients(list) {
      if (list.length === 0) return;
      const firstRank = given.length + 1;
      given.push(...list);
      queue(async () => {
        await nextTurn();
        const rows = buildRecipientRows(list, firstRank);
        appendRows(built, rows);
        comparer?.add(rows);
        await insertRows(trx, snapshotId, rows);
      });
    },
    addPage(page) {
      pages += 1;
      queue(() => insertPages(trx, snapshotId, [page]));
    },
    compareWith(version) {
      queue(async () => {
        await nextTurn();
        previous = version;
        comparer = createDriftComparer(version);
        comparer.add(built);
      });
    },
    async reset(keep = []) {
      await chain;
      failure = null;
      given = [];
      built = emptyRows();
      comparer = previous ? createDriftComparer(previous) : null;
      pages = 0;
      await sql`rollback to savepoint snapshot_rows`.execute(trx);
      for (const page of keep) writer.addPage(page);
    },
    async flush() {
      await chain;
      if (failure) throw failure;
      const drift = previous && comparer ? { previous, comparer } : null;
      return { recipients: given.length, pages, written: { recipients: given, rows: built, drift } };
    },
  };
  return writer;
}

/** True when the writer wrote exactly these recipients, in this order (the very objects the read assembled). */
function wroteExactly(written: WrittenRecipients, recipients: readonly AttributionRecipient[]): boolean {
  return (
    written.recipients.length === recipients.length &&
    recipients.every((recipient, index) => written.recipients[index] === recipient)
  );
}

export type PreviousVersion = {
  id: string;
  version: number;
  windowClosed: boolean;
};

/** The newest published version of a window, if any. */
export async function findPreviousVersion(db: Db, gameId: string, window: TimeWindow): Promise<PreviousVersion | null> {
  const row = await db
    .selectFrom("snapshot")
    .select(["id", "version", "window_closed"])
    .where("game_id", "=", gameId)
    .where("window_start", "=", new Date(window.startMs))
    .where("window_end", "=", new Date(window.endMs))
    .orderBy("version", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? { id: row.id, version: row.version, windowClosed: row.window_closed } : null;
}

/** A timestamptz column as formatInstant writes it: whole seconds with Z, otherwise milliseconds too. */
export function instantText(column: string) {
  const utc = sql`${sql.ref(column)} at time zone 'UTC'`;
  return sql`to_char(${utc}, 'YYYY-MM-DD"T"HH24:MI:SS') || case when to_char(${utc}, 'MS') = '000' then 'Z'
    else '.' || to_char(${utc}, 'MS') || 'Z' end`.as(column);
}

/** A published version's totals and rows, in the shape drift compares. */
export async function loadComparable(db: Db, snapshotId: string): Promise<ComparableVersion> {
  const totals = await db.selectFrom("snapshot").selectAll().where("id", "=", snapshotId).executeTakeFirstOrThrow();
  // Only the compared columns, instants already as formatInstant text: reading and decoding tens of thousands of
  // rows runs beside the next pull's fetch, and a Date per instant, parsed then formatted again, costs more than this.
  const read = (table: string, columns: readonly string[]) =>
    sql<Row>`select ${sql.join(columns.map((column) => (INSTANT_COLUMNS.has(column) ? instantText(column) : sql.ref(column))))}
      from ${sql.table(table)} where snapshot_id = ${snapshotId}`
      .execute(db)
      .then((result) => result.rows);
  const [recipients, lines, reversals, events] = await Promise.all([
    read("snapshot_recipient", COMPARED_COLUMNS.recipients),
    read("snapshot_line", COMPARED_COLUMNS.lines),
    read("snapshot_reversal", COMPARED_COLUMNS.reversals),
    read("snapshot_refund_event", COMPARED_COLUMNS.events),
  ]);
  return { totals: totals as unknown as Record<string, unknown>, rows: { recipients, lines, reversals, events } };
}

export type LoadedPrevious = (PreviousVersion & { comparable: ComparableVersion | null }) | null;

/**
 * The previous version of the window and, when it can be compared (taken after the window closed), its rows. Started
 * while the pages are being read, so the comparison costs no extra wall time.
 */
export async function loadPreviousVersion(db: Db, gameId: string, window: TimeWindow): Promise<LoadedPrevious> {
  const previous = await findPreviousVersion(db, gameId, window);
  if (!previous) return null;
  return { ...previous, comparable: previous.windowClosed ? await loadComparable(db, previous.id) : null };
}

export type PublishInput = {
  snapshotId: string;
  pullId: string;
  gameId: string;
  window: TimeWindow;
  fetched: FetchedWindow;
  checks: Check[];
  takenBy: { id: string; email: string } | null;
  fetchStartedAt: Date;
  fetchFinishedAt: Date;
  stats: { requests: number; rateLimited: number; retries: number };
  durationMs: number;
  /** From loadPreviousVersion, read before publishing; read here when not given. */
  previous?: LoadedPrevious;
};

export type PublishResult = {
  snapshotId: string;
  version: number;
  driftStatus: SnapshotDriftStatus;
  driftCount: number;
  comparedTo: string | null;
  windowClosed: boolean;
  rows: SnapshotRows;
};

/**
 * Compares with the previous version (when both were taken after the window closed) and writes the snapshot inside
 * `trx`, which the caller commits: the rows the writer already holds are kept, the rest written here.
 */
export async function publishSnapshot(
  db: Db,
  trx: Transaction<Database>,
  input: PublishInput & { writer?: RowWriter },
): Promise<PublishResult> {
  const { fetched, window } = input;
  // A write queued while reading that failed surfaces here, before anything else runs in the transaction.
  const flushed = input.writer ? await input.writer.flush() : null;
  // Rows the writer built from the very recipients of the read are reused: building them again costs as much.
  const rowsWritten = flushed !== null && wroteExactly(flushed.written, fetched.recipients);
  const rows = rowsWritten ? flushed.written.rows : buildRows(fetched);
  const totals = totalsColumns(fetched);
  const generatedAt = iso(fetched.generatedFirst);
  // A window is closed once its end has passed on the service's own clock.
  const windowClosed = window.endMs <= (parseInstant(fetched.generatedFirst) ?? 0);
  const previous = input.previous === undefined ? await loadPreviousVersion(db, input.gameId, window) : input.previous;

  let driftStatus: SnapshotDriftStatus = "first_version";
  let drift: DriftEntry[] = [];
  if (previous && !(previous.windowClosed && windowClosed)) driftStatus = "not_comparable";
  if (previous && previous.windowClosed && windowClosed) {
    const comparable = previous.comparable ?? (await loadComparable(db, previous.id));
    // The rows were compared with this very version while they were written; only the totals are left.
    const compared = rowsWritten ? flushed.written.drift : null;
    drift =
      compared && compared.previous === comparable
        ? compared.comparer.finish(totals)
        : compareVersions(comparable, { totals, rows });
    driftStatus = drift.some((entry) => entry.severity === "drift") ? "drift" : "reproduced";
  }

  const id = input.snapshotId;
  const version = await (async () => {
    // Serialises publishers of one window so that versions are numbered without gaps or clashes.
    await sql`select pg_advisory_xact_lock(hashtext(${`snapshot-version|${input.gameId}|${window.startMs}|${window.endMs}`}))`.execute(
      trx,
    );
    const latest = await trx
      .selectFrom("snapshot")
      .select((eb) => eb.fn.max("version").as("version"))
      .where("game_id", "=", input.gameId)
      .where("window_start", "=", new Date(window.startMs))
      .where("window_end", "=", new Date(window.endMs))
      .executeTakeFirst();
    const next = (latest?.version ?? 0) + 1;
    await trx
      .insertInto("snapshot")
      .values({
        id,
        game_id: input.gameId,
        window_start: new Date(window.startMs),
        window_end: new Date(window.endMs),
        version: next,
        pull_id: input.pullId,
        taken_by_email: input.takenBy?.email ?? null,
        fetch_started_at: input.fetchStartedAt,
        fetch_finished_at: input.fetchFinishedAt,
        service_generated_at: generatedAt,
        window_closed: windowClosed,
        built_from: fetched.subWindows.length > 0 ? "split" : "single",
        page_count: fetched.pages.length,
        request_count: input.stats.requests,
        rate_limited: input.stats.rateLimited,
        retries: input.stats.retries,
        duration_ms: Math.round(input.durationMs),
        sub_window_count: fetched.subWindows.length,
        line_count: rows.lines.length,
        reversal_count: rows.reversals.length,
        refund_event_count: rows.events.length,
        ...totals,
        unattributed_reasons: JSON.stringify(totals.unattributed_reasons),
        report: JSON.stringify({
          ...fetched.report,
          generated_first: fetched.generatedFirst,
          generated_last: fetched.generatedLast,
        }),
        attribution_notice: JSON.stringify(fetched.notice),
        checks: JSON.stringify(input.checks),
        build_notes: JSON.stringify(fetched.notes),
        compared_to_snapshot_id:
          driftStatus === "reproduced" || driftStatus === "drift" ? (previous?.id ?? null) : null,
        drift_status: driftStatus,
        drift_count: drift.filter((entry) => entry.severity === "drift").length,
      })
      .execute();
    const pagesWritten = (flushed?.pages ?? 0) === fetched.pages.length;
    if (!pagesWritten || (!rowsWritten && (flushed?.recipients ?? 0) > 0)) {
      // Something written while reading does not match what was read: write it all again from here.
      if (input.writer) await input.writer.reset();
      await insertRows(trx, id, rows);
      await insertPages(trx, id, fetched.pages);
    } else if (!rowsWritten) {
      // A window read in parts: its recipients exist only once the parts are merged.
      await insertRows(trx, id, rows);
    }
    await bulkInsert(
      trx,
      "snapshot_sub_window",
      id,
      SUB_WINDOW_COLUMNS,
      fetched.subWindows.map((part, index) => ({
        seq: index + 1,
        scope: part.scope,
        recipient_player_id: part.recipientPlayerId,
        window_start: formatInstant(part.window.startMs),
        window_end: formatInstant(part.window.endMs),
        depth: part.depth,
        reason: part.reason,
        pages: part.pages,
      })),
    );
    if (previous && drift.length > 0) {
      await bulkInsert(
        trx,
        "snapshot_drift",
        id,
        DRIFT_COLUMNS,
        drift.slice(0, MAX_DRIFT_ROWS).map((entry, index) => ({
          seq: index + 1,
          previous_snapshot_id: previous.id,
          severity: entry.severity,
          entity: entry.entity,
          entity_key: entry.entityKey,
          field: entry.field,
          previous_value: entry.previous,
          current_value: entry.current,
        })),
      );
    }
    await trx
      .updateTable("snapshot_pull")
      .set({
        status: "complete",
        snapshot_id: id,
        finished_at: new Date(),
        phase: "published",
        updated_at: new Date(),
        eta_at: null,
      })
      .where("id", "=", input.pullId)
      .execute();
    await recordAudit(trx, {
      actor: input.takenBy,
      action: "snapshot.publish",
      gameId: input.gameId,
      target: id,
      outcome: driftStatus === "drift" ? "drift" : "succeeded",
      detail: {
        window: { start: formatInstant(window.startMs), end: formatInstant(window.endMs) },
        version: next,
        recipients: rows.recipients.length,
        lines: rows.lines.length,
        netAttributedUsd: totals.net_attributed_usd,
        drift: driftStatus,
      },
    });
    return next;
  })();

  return {
    snapshotId: id,
    version,
    driftStatus,
    driftCount: drift.filter((entry) => entry.severity === "drift").length,
    comparedTo: previous?.id ?? null,
    windowClosed,
    rows,
  };
}
