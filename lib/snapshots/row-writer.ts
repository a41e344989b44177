import "server-only";
import type { Trx } from "@/db";
import { createSavepoint, rollbackToSavepoint } from "@/db/queries/locks";
import type pg from "pg";
import { bulkInsertSnapshotRows, copySnapshotPages, deleteUnpublishedRows } from "@/db/queries/snapshot-store";
import type { AttributionRecipient } from "@/lib/service/schemas";
import { type ComparableVersion, createDriftComparer, type DriftComparer } from "./drift";
import type { PageRecord } from "./fetch";
import type { LineFacts, RecipientWith } from "./merge";
import {
  buildLineRows,
  buildRecipientRows,
  buildRecipientRowsWithoutLines,
  emptyRows,
  type Row,
  type SnapshotRows,
  withoutLines,
} from "./rows";

export async function insertRows(trx: Trx, snapshotId: string, rows: SnapshotRows): Promise<void> {
  await bulkInsertSnapshotRows(trx, "snapshot_recipient", snapshotId, rows.recipients);
  await bulkInsertSnapshotRows(trx, "snapshot_line", snapshotId, rows.lines);
  await bulkInsertSnapshotRows(trx, "snapshot_reversal", snapshotId, rows.reversals);
  await bulkInsertSnapshotRows(trx, "snapshot_refund_event", snapshotId, rows.events);
}

/**
 * Writes raw pages and final recipients (with their lines, reversals and refund events) inside the publishing
 * transaction while the next pages are still being read, so that storing overlaps fetching. Nothing is visible
 * before the commit; a read that starts over voids what was written for it (reset). A page's text is held only until
 * it is written (copied in over the transaction's connection). Pages go in ten to a statement and lines a thousand:
 * every statement's round trip waits for this process's turn as well as the database's, and what waits for a
 * statement outlives collections of the young generation, which copy it each time (below).
 *
 * A window read in parts has no final recipient before its last part (their figures are summed over the parts), but
 * each renewal line belongs to exactly one part: the lines of each page of a part are written as soon as they are
 * complete.
 *
 * Given the previous version of the window, it also compares each page's rows but the lines with it as they come, so
 * that publishing has only the totals left to compare in memory; the lines are compared in the database once all are
 * written. A part's line rows are let go once written: the writer keeps just their period ids (a month read in parts
 * holds a million lines; their rows alone are about a quarter of a gigabyte).
 */
export type RowWriter = {
  addRecipients(recipients: readonly AttributionRecipient[]): void;
  /** Complete lines of a part of the window (a page's recipients), when the snapshot held `pagesRead` pages. */
  addPartLines(recipients: readonly AttributionRecipient[], pagesRead: number): void;
  /**
   * The recipients of a window read in parts, once its parts are merged (their lines were written part by part):
   * their rows go to the database while the read is checked, rather than after.
   */
  addMergedRecipients(recipients: readonly RecipientWith<LineFacts>[]): void;
  /**
   * Queues the page's write (with the pages after it, up to PAGES_PER_INSERT); its text is held until the write has
   * run. Resolves at once, or once the queue is written when more than MAX_PAGES_PENDING pages wait (a store slower
   * than the service never piles texts up).
   */
  addPage(page: PageRecord): Promise<void>;
  /** Pages queued whose write has not run yet: the only page texts the writer holds. */
  pagesPending(): number;
  /** Compares every row but the lines written, before and after this call, with this version. */
  compareWith(previous: ComparableVersion): void;
  /**
   * Voids what was written beyond the first `keptPages` pages (the pages still part of the read): the pages after
   * them, the lines handed over after them and every recipient. The lines handed over within them stay.
   * Nothing needs a page's text again: with no page kept everything written is rolled back, otherwise just those rows
   * are deleted.
   */
  reset(keptPages?: number): Promise<void>;
  /**
   * Waits for every queued write; returns what was written: counts, and the recipients with the rows built from them
   * and their comparison (so that publishing need not build or compare them again). Rethrows a failed write.
   */
  flush(): Promise<{ recipients: number; pages: number; written: WrittenRecipients }>;
  /**
   * Ends the writer however the read ended: writes queued and not begun are dropped, the one under way is waited for.
   * Run before the transaction ends, so that nothing is written on its connection once the pool has it back.
   */
  close(): Promise<void>;
};

export type WrittenRecipients = {
  recipients: readonly RecipientWith<LineFacts>[];
  rows: SnapshotRows;
  /** The period ids of the lines written part by part (a window read in parts), in the order written. */
  partPeriodIds: readonly number[];
  /** The comparison of every row but the lines: publishing compares those in the database. */
  drift: { previous: ComparableVersion; comparer: DriftComparer } | null;
};

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

/** A part's lines as written: their period ids. */
type PartLines = { periodIds: number[]; pagesRead: number };

/**
 * Pages waiting to be written before the read waits for the store (some megabytes at most: a page is up to a hundred
 * kilobytes). Enough for the store to write a few thousand lines meanwhile without holding the read up.
 */
export const MAX_PAGES_PENDING = 32;

/**
 * Lines written by one statement (from as many pages as it takes). Their rows are built as each page's lines are
 * handed over and wait here until a statement's worth is complete: with four thousand a statement they outlived two
 * collections of the young generation and were copied to the old one, and the pull of a 100,000-line month spent 3.0
 * s of its main thread in those collections; 2.3 s with a thousand, 1.6 s with the rows built on the read's turn
 * rather than queued behind the statements before them (the page's parsed lines let go at once).
 */
const LINES_PER_INSERT = 1_000;

/** What a closed row writer answers to anything more asked of it. */
const CLOSED = "the row writer was closed: its transaction has ended";

/** Pages written by one statement. */
const PAGES_PER_INSERT = 10;

/**
 * `connection` is the transaction's own (transactionWithConnection): the pages are copied in over it.
 */
export async function createRowWriter(trx: Trx, connection: pg.PoolClient, snapshotId: string): Promise<RowWriter> {
  await createSavepoint(trx, "snapshot_rows");
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown = null;
  let given: RecipientWith<LineFacts>[] = [];
  let built = emptyRows();
  let parts: PartLines[] = [];
  let previous: ComparableVersion | null = null;
  let comparer: DriftComparer | null = null;
  let pages = 0;
  let pending = 0;
  let waiting: PageRecord[] = [];
  let closed = false;
  const refuseClosed = () => {
    if (closed) throw new Error(CLOSED);
  };
  const queue = (work: () => Promise<void>) => {
    chain = chain
      .then(() => (closed ? undefined : work()))
      .catch((error: unknown) => {
        failure ??= error;
      });
  };
  // The pages waiting, to be written by one statement.
  const queueWaiting = () => {
    if (waiting.length === 0) return;
    const batch = waiting;
    waiting = [];
    queue(async () => {
      try {
        await copySnapshotPages(connection, snapshotId, batch);
      } finally {
        pending -= batch.length;
      }
    });
  };
  // Lines handed over are written once LINES_PER_INSERT wait, whatever the pages they came with (all that wait then:
  // more when the store is behind the read).
  let lines: Row[] = [];
  // A write of the lines is queued: it takes every line there is when it runs.
  let linesQueued = false;
  const writeLines = async () => {
    const rows = lines;
    lines = [];
    linesQueued = false;
    if (rows.length > 0) await bulkInsertSnapshotRows(trx, "snapshot_line", snapshotId, rows);
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
        comparer?.add(withoutLines(rows));
        await insertRows(trx, snapshotId, rows);
      });
    },
    addMergedRecipients(list) {
      if (list.length === 0) return;
      const firstRank = given.length + 1;
      // One at a time: a window's recipients are far more than a call takes arguments.
      for (const recipient of list) given.push(recipient);
      queue(async () => {
        await nextTurn();
        const rows = buildRecipientRowsWithoutLines(list, firstRank);
        appendRows(built, rows);
        comparer?.add(rows);
        await insertRows(trx, snapshotId, rows);
      });
    },
    addPartLines(list, pagesRead) {
      const rows = buildLineRows(list);
      parts.push({ periodIds: rows.map((row) => row.period_id as number), pagesRead });
      for (const row of rows) lines.push(row);
      if (lines.length >= LINES_PER_INSERT && !linesQueued) {
        linesQueued = true;
        queue(writeLines);
      }
    },
    addPage(page) {
      if (closed) return Promise.reject(new Error(CLOSED));
      // A write that failed fails the read at its next page: the rest of the window is not read for nothing.
      if (failure) return Promise.reject(failure);
      pages += 1;
      pending += 1;
      waiting.push(page);
      if (waiting.length >= PAGES_PER_INSERT || pending > MAX_PAGES_PENDING) queueWaiting();
      return pending > MAX_PAGES_PENDING ? chain : Promise.resolve();
    },
    pagesPending: () => pending,
    compareWith(version) {
      queue(async () => {
        await nextTurn();
        previous = version;
        comparer = createDriftComparer(version);
        comparer.add(withoutLines(built));
      });
    },
    async reset(keptPages = 0) {
      refuseClosed();
      queueWaiting();
      await chain;
      const voidPeriodIds = [
        ...built.lines.map((row) => row.period_id as number),
        ...parts.filter((part) => part.pagesRead > keptPages).flatMap((part) => part.periodIds),
      ];
      // Lines not written yet: those of the void read go unwritten (any written already are deleted with the rest),
      // the others are written before the rest is voided.
      const voided = new Set(voidPeriodIds);
      lines = keptPages === 0 ? [] : lines.filter((row) => !voided.has(row.period_id as number));
      queue(writeLines);
      await chain;
      const recipientsWritten = given.length > 0;
      given = [];
      built = emptyRows();
      pages = keptPages;
      parts = parts.filter((part) => part.pagesRead <= keptPages);
      comparer = previous ? createDriftComparer(previous) : null;
      if (keptPages === 0) {
        failure = null;
        await rollbackToSavepoint(trx, "snapshot_rows");
        return;
      }
      // A failed write leaves the transaction unusable and nothing to write the kept pages from: flush rethrows it.
      if (failure) return;
      await deleteUnpublishedRows(trx, snapshotId, {
        afterSeq: keptPages,
        periodIds: voidPeriodIds,
        recipients: recipientsWritten,
      });
    },
    async close() {
      closed = true;
      await chain;
    },
    async flush() {
      refuseClosed();
      queueWaiting();
      queue(writeLines);
      await chain;
      if (failure) throw failure;
      const drift = previous && comparer ? { previous, comparer } : null;
      const partPeriodIds = parts.flatMap((part) => part.periodIds);
      return {
        recipients: given.length,
        pages,
        written: { recipients: given, rows: built, partPeriodIds, drift },
      };
    },
  };
  return writer;
}

/**
 * Runs `work` with a row writer of the transaction, closed however the work ends: a read that failed may leave writes
 * queued, and none may run on the transaction's connection once the pool has it back.
 */
export async function withRowWriter<T>(
  trx: Trx,
  connection: pg.PoolClient,
  snapshotId: string,
  work: (writer: RowWriter) => Promise<T>,
): Promise<T> {
  const writer = await createRowWriter(trx, connection, snapshotId);
  try {
    return await work(writer);
  } finally {
    await writer.close();
  }
}
