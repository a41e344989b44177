import "server-only";
import type { Db, Trx } from "@/db";
import { updatePull } from "@/db/queries/snapshot-pulls";
import {
  bulkInsertSnapshotRows,
  findLatestVersion,
  readDifferingLines,
  insertSnapshot,
  nextSnapshotVersion,
  readSnapshotColumns,
  readSnapshotTotals,
} from "@/db/queries/snapshot-store";
import type { SnapshotDriftStatus } from "@/db/types";
import type { Actor, Via } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { formatInstant, parseServiceInstant, type TimeWindow, windowToQuery } from "@/lib/time";
import {
  COMPARED_COLUMNS,
  type ComparableVersion,
  INSTANT_COLUMNS,
  compareLine,
  compareVersions,
  type DriftEntry,
} from "./drift";
import type { FetchedWindow } from "./fetch";
import type { Check, LineFacts, RecipientWith } from "./merge";
import type { BulkTable } from "@/db/queries/snapshot-columns";
import { insertRows, type RowWriter, type WrittenRecipients } from "./row-writer";
import { buildRecipientRowsWithoutLines, buildRows, totalsColumns, withoutLines } from "./rows";

export { type RowWriter, withRowWriter, type WrittenRecipients } from "./row-writer";

/**
 * Publishing: the whole snapshot (header, recipients, lines, reversals, refund events, raw pages, sub-windows and the
 * drift found against the previous version) is written in one transaction together with the pull's "complete"
 * status. Until that commit nothing of the pull is visible (a killed pull's transaction is rolled back by the
 * server); after it, nothing of it changes (the tables refuse UPDATE and DELETE).
 */

/** Enough to show what moved; the count on the snapshot says how many there were in all. */
export const MAX_DRIFT_ROWS = 5_000;

function iso(text: string): string {
  const ms = parseServiceInstant(text);
  if (ms === null) throw new Error(`not a timestamp: ${text}`);
  return formatInstant(ms);
}

/**
 * True when the lines written part by part are exactly the window's lines (each part's lines are its own, so the
 * merged recipients hold the same lines, in another order).
 */
function wroteLinesOf(partPeriodIds: readonly number[], recipients: readonly RecipientWith<LineFacts>[]): boolean {
  const written = new Set(partPeriodIds);
  let lines = 0;
  for (const recipient of recipients) {
    for (const line of recipient.periods) {
      if (!written.has(line.period_id)) return false;
      lines += 1;
    }
  }
  return lines === partPeriodIds.length && written.size === lines;
}

/** True when the writer wrote exactly these recipients, in this order (the very objects the read assembled). */
function wroteExactly(written: WrittenRecipients, recipients: readonly RecipientWith<LineFacts>[]): boolean {
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

/**
 * A published version's totals and rows, in the shape drift compares; without its lines with `lines: false` (a month
 * may hold a million: publishing compares them in the database, compareLinesInDatabase).
 */
export async function loadComparable(
  db: Db,
  snapshotId: string,
  options: { lines: boolean } = { lines: true },
): Promise<ComparableVersion> {
  const read = (table: BulkTable, columns: readonly string[]) =>
    readSnapshotColumns(db, { table, snapshotId, columns, instants: INSTANT_COLUMNS });
  const [totals, recipients, lines, reversals, events] = await Promise.all([
    readSnapshotTotals(db, snapshotId),
    read("snapshot_recipient", COMPARED_COLUMNS.recipients),
    options.lines ? read("snapshot_line", COMPARED_COLUMNS.lines) : [],
    read("snapshot_reversal", COMPARED_COLUMNS.reversals),
    read("snapshot_refund_event", COMPARED_COLUMNS.events),
  ]);
  return { totals, rows: { recipients, lines, reversals, events } };
}

export type LoadedPrevious = (PreviousVersion & { comparable: ComparableVersion | null }) | null;

/**
 * The previous version of the window and, when it can be compared (taken after the window closed), its rows but the
 * lines. Started while the pages are being read, so the comparison costs no extra wall time.
 */
export async function loadPreviousVersion(db: Db, gameId: string, window: TimeWindow): Promise<LoadedPrevious> {
  const previous = await findPreviousVersion(db, gameId, window);
  if (!previous) return null;
  const comparable = previous.windowClosed ? await loadComparable(db, previous.id, { lines: false }) : null;
  return { ...previous, comparable };
}

/** Lines read back at a time where two versions differ. */
const DIFFERING_LINES_PER_READ = 2_000;

/**
 * The renewal lines of two versions compared where they are, in the database (`currentId`'s written in `trx`): only
 * the lines that differ come back, to be compared by drift's rules. Keeps the first `keep` differences and counts all.
 */
export async function compareLinesInDatabase(
  trx: Trx,
  params: { previousId: string; currentId: string; keep: number },
): Promise<{ entries: DriftEntry[]; count: number }> {
  const columns = COMPARED_COLUMNS.lines.filter((column) => column !== "period_id");
  const entries: DriftEntry[] = [];
  let count = 0;
  let after: string | null = null;
  for (;;) {
    const lines = await readDifferingLines(trx, {
      ...params,
      columns,
      instants: INSTANT_COLUMNS,
      after,
      limit: DIFFERING_LINES_PER_READ,
    });
    for (const line of lines) {
      const found: DriftEntry[] = [];
      compareLine(found, line.periodId, line.previous, line.current);
      count += found.length;
      entries.push(...found.slice(0, Math.max(0, params.keep - entries.length)));
    }
    if (lines.length < DIFFERING_LINES_PER_READ) return { entries, count };
    after = lines[lines.length - 1]?.periodId ?? null;
  }
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
};

/**
 * Compares with the previous version (when both were taken after the window closed) and writes the snapshot inside
 * `trx`, which the caller commits: the rows the writer already holds are kept, the rest written here.
 */
export async function publishSnapshot(
  db: Db,
  trx: Trx,
  input: PublishInput & { writer: RowWriter },
): Promise<PublishResult> {
  const { fetched, window } = input;
  // A write queued while reading that failed surfaces here, before anything else runs in the transaction.
  const flushed = await input.writer.flush();
  // The pages were written as they were read, and only there: the read kept none of their text.
  if (flushed.pages !== fetched.pages.length) {
    throw new Error(`${flushed.pages} pages were written while reading, but the read has ${fetched.pages.length}`);
  }
  // Rows the writer built from the very recipients of the read are reused: building them again costs as much.
  const rowsWritten = wroteExactly(flushed.written, fetched.recipients);
  // A window read in parts: its lines were written part by part, the rest is built here.
  const { partPeriodIds } = flushed.written;
  const linesWritten = fetched.linesWritten;
  // The writer voids what it wrote for a read started over, so whatever it holds is the read's own.
  if (
    (!rowsWritten && flushed.recipients > 0) ||
    (linesWritten ? !wroteLinesOf(partPeriodIds, fetched.recipients) : partPeriodIds.length > 0)
  ) {
    throw new Error("rows written while reading do not match the recipients read");
  }
  // A window read in parts: its lines are in the database only.
  const rows = rowsWritten
    ? flushed.written.rows
    : linesWritten
      ? buildRecipientRowsWithoutLines(fetched.recipients, 1)
      : buildRows(fetched);
  const id = input.snapshotId;
  // Every row is written before the lines are compared in the database (the keys to the snapshot row are checked at
  // the commit). A window read in parts has its recipients only once the parts are merged.
  if (!rowsWritten) await insertRows(trx, id, rows);
  const lineCount = linesWritten ? partPeriodIds.length : rows.lines.length;
  const totals = totalsColumns(fetched);
  const generatedAt = iso(fetched.generatedFirst);
  // A window is closed once its end has passed on the service's own clock, and it was read to its end (an open one is
  // read up to a bound before the pull began, which the service's clock, ahead of ours, may have passed the end of).
  const readToEnd = fetched.window.endMs >= window.endMs;
  const windowClosed = readToEnd && window.endMs <= (parseServiceInstant(fetched.generatedFirst) ?? 0);
  const previous = input.previous === undefined ? await loadPreviousVersion(db, input.gameId, window) : input.previous;

  let driftStatus: SnapshotDriftStatus = "first_version";
  let drift: DriftEntry[] = [];
  let driftCount = 0;
  if (previous && !(previous.windowClosed && windowClosed)) driftStatus = "not_comparable";
  if (previous?.windowClosed && windowClosed) {
    const comparable = previous.comparable ?? (await loadComparable(db, previous.id, { lines: false }));
    // The rows were compared with this very version while they were written; only the totals are left.
    const compared = rowsWritten || linesWritten ? flushed.written.drift : null;
    if (compared && compared.previous === comparable) {
      // The recipients of a window read in parts exist only once its parts are merged: compared here unless the
      // writer wrote them.
      if (linesWritten && !rowsWritten) compared.comparer.add(rows);
      drift = compared.comparer.finish(totals);
    } else {
      drift = compareVersions(comparable, { totals, rows: withoutLines(rows) });
    }
    driftCount = drift.filter((entry) => entry.severity === "drift").length;
    // The lines last: the drift kept on the snapshot shows the other rows' first.
    const lines = await compareLinesInDatabase(trx, {
      previousId: previous.id,
      currentId: id,
      keep: MAX_DRIFT_ROWS - drift.length,
    });
    drift.push(...lines.entries);
    driftCount += lines.count;
    driftStatus = driftCount > 0 ? "drift" : "reproduced";
  }

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
      line_count: lineCount,
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
      drift_count: driftCount,
    });
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
        window: windowToQuery(window),
        version: next,
        recipients: rows.recipients.length,
        lines: lineCount,
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
    driftCount,
    comparedTo: previous?.id ?? null,
    windowClosed,
  };
}
