import "server-only";
import type { Db, Trx } from "@/db";
import { createSavepoint, rollbackToSavepoint } from "@/db/queries/locks";
import { updatePull } from "@/db/queries/snapshot-pulls";
import {
  bulkInsertSnapshotRows,
  findLatestVersion,
  insertSnapshot,
  insertSnapshotPages,
  nextSnapshotVersion,
  readSnapshotColumns,
  readSnapshotTotals,
} from "@/db/queries/snapshot-store";
import type { SnapshotDriftStatus } from "@/db/types";
import type { Actor, Via } from "@/core/actor";
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
import type { BulkTable } from "@/db/queries/snapshot-columns";
import type { AttributionRecipient } from "@/lib/service/schemas";
import { buildRecipientRows, buildRows, type SnapshotRows, totalsColumns } from "./rows";

/**
 * Publishing: the whole snapshot (header, recipients, lines, reversals, refund events, raw pages, sub-windows and the
 * drift found against the previous version) is written in one transaction together with the pull's "complete"
 * status. Until that commit nothing of the pull is visible (a killed pull's transaction is rolled back by the
 * server); after it, nothing of it changes (the tables refuse UPDATE and DELETE).
 */

/** Enough to show what moved; the count on the snapshot says how many there were in all. */
export const MAX_DRIFT_ROWS = 5_000;

function iso(text: string): string {
  const ms = parseInstant(text);
  if (ms === null) throw new Error(`not a timestamp: ${text}`);
  return formatInstant(ms);
}

async function insertRows(trx: Trx, snapshotId: string, rows: SnapshotRows): Promise<void> {
  await bulkInsertSnapshotRows(trx, "snapshot_recipient", snapshotId, rows.recipients);
  await bulkInsertSnapshotRows(trx, "snapshot_line", snapshotId, rows.lines);
  await bulkInsertSnapshotRows(trx, "snapshot_reversal", snapshotId, rows.reversals);
  await bulkInsertSnapshotRows(trx, "snapshot_refund_event", snapshotId, rows.events);
}

async function insertPages(trx: Trx, snapshotId: string, pages: readonly PageRecord[]): Promise<void> {
  await insertSnapshotPages(trx, snapshotId, pages);
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

export async function createRowWriter(trx: Trx, snapshotId: string): Promise<RowWriter> {
  await createSavepoint(trx, "snapshot_rows");
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
      await rollbackToSavepoint(trx, "snapshot_rows");
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
  return findLatestVersion(db, { gameId, window });
}

/** A published version's totals and rows, in the shape drift compares. */
export async function loadComparable(db: Db, snapshotId: string): Promise<ComparableVersion> {
  const read = (table: BulkTable, columns: readonly string[]) =>
    readSnapshotColumns(db, { table, snapshotId, columns, instants: INSTANT_COLUMNS });
  const [totals, recipients, lines, reversals, events] = await Promise.all([
    readSnapshotTotals(db, snapshotId),
    read("snapshot_recipient", COMPARED_COLUMNS.recipients),
    read("snapshot_line", COMPARED_COLUMNS.lines),
    read("snapshot_reversal", COMPARED_COLUMNS.reversals),
    read("snapshot_refund_event", COMPARED_COLUMNS.events),
  ]);
  return { totals, rows: { recipients, lines, reversals, events } };
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
  takenBy: Actor | null;
  /** Through what the pull's request came. */
  via: Via;
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
  trx: Trx,
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
  if (previous?.windowClosed && windowClosed) {
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
    const next = await nextSnapshotVersion(trx, { gameId: input.gameId, window });
    await insertSnapshot(trx, {
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
      compared_to_snapshot_id: driftStatus === "reproduced" || driftStatus === "drift" ? (previous?.id ?? null) : null,
      drift_status: driftStatus,
      drift_count: drift.filter((entry) => entry.severity === "drift").length,
    });
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
    await bulkInsertSnapshotRows(
      trx,
      "snapshot_sub_window",
      id,
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
      await bulkInsertSnapshotRows(
        trx,
        "snapshot_drift",
        id,
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
    await updatePull(trx, input.pullId, {
      status: "complete",
      snapshot_id: id,
      finished_at: new Date(),
      phase: "published",
      updated_at: new Date(),
      eta_at: null,
    });
    await recordAudit(trx, {
      actor: input.takenBy,
      via: input.via,
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
