import "server-only";
import type { AttributionRecipient, AttributionReport, RenewalLine, Reversal } from "@/lib/service/schemas";
import { formatWindow, type TimeWindow, windowToQuery } from "@/lib/time";
import { cancellable, createLookahead, LOOKAHEAD_PAGES, type Lookahead, type PageAnswer } from "./lookahead";
import { sameFigures } from "./same-figures";
import { partsForTooLarge, splitInto } from "./window-split";
import {
  type AssembledWindow,
  completeRecipient,
  type LineFacts,
  lineFacts,
  mergeParts,
  type RecipientWith,
  type SubWindowRecord,
} from "./merge";
import type {
  FetchContext as Ctx,
  FetchedWindow,
  FetchOptions,
  PageInfo,
  ReadWindow,
  ReportSource,
} from "./fetch-types";

export type * from "./fetch-types";

/**
 * Reads every page of a window's attribution report and assembles it, splitting into adjacent sub-windows where
 * the service will not answer in one piece:
 * - the window answers 400 WINDOW_TOO_LARGE ("more than 20,000 settled renewals ... or more than 20,000 refunded
 *   renewals"): the whole window is split and each part read in full, then merged;
 * - a recipient's lines are cut at the inline cap ("periods[] (renewal lines, capped at 500; periods_truncated)",
 *   reversals the same): only that recipient is read again, filtered by recipient_player_id, over sub-windows small
 *   enough to come back whole. The window report's own figures for the recipient stay; its lines are replaced.
 */

/** "limit ... silently clamped to 100": the largest page there is. */
export const PAGE_SIZE = 100;
/** Below the inline cap of 500, so that a sub-window sized from the counts usually comes back whole. */
const LINES_PER_PART = 400;
const MAX_DEPTH = 24;
const MAX_RESTARTS = 3;

/** The snapshot cannot be made complete (a sub-window that cannot be split further still truncates). */
export class SnapshotIncompleteError extends Error {
  readonly code = "SNAPSHOT_INCOMPLETE";
}

/** The window's figures changed between pages of one read; retried, then reported with this. */
export class WindowChangedError extends Error {
  readonly code = "WINDOW_CHANGED_DURING_PULL";
}

function emit(ctx: Ctx, phase?: string): void {
  if (phase) ctx.progress.phase = phase;
  ctx.options.onProgress?.({ ...ctx.progress });
}

/** Asks for one page; nothing is recorded until recordPage. */
async function requestPage(
  ctx: Ctx,
  window: TimeWindow,
  recipientPlayerId: number | null,
  offset: number,
  limit: number,
  signal = ctx.options.signal,
  onReceived?: () => void,
): Promise<PageAnswer> {
  signal?.throwIfAborted();
  const query = windowToQuery(window);
  const { report, raw } = await ctx.source.report(
    { ...query, recipientPlayerId: recipientPlayerId ?? undefined, limit, offset },
    signal,
    onReceived,
  );
  return { report, raw, fetchedAt: new Date() };
}

/** Makes an answer the snapshot's next page: its sequence number, progress, onPage. */
async function recordPage(
  ctx: Ctx,
  window: TimeWindow,
  recipientPlayerId: number | null,
  offset: number,
  limit: number,
  answer: PageAnswer,
): Promise<AttributionReport> {
  // An answer asked for ahead may have come before the pull was stopped; it is not stored then.
  ctx.options.signal?.throwIfAborted();
  const info: PageInfo = {
    seq: ctx.pages.length + 1,
    window,
    recipientPlayerId,
    offset,
    limit,
    fetchedAt: answer.fetchedAt,
  };
  ctx.pages.push(info);
  ctx.progress.pagesFetched += 1;
  ctx.progress.pagesEstimated = Math.max(ctx.progress.pagesEstimated, ctx.progress.pagesFetched);
  await ctx.options.onPage?.({ ...info, body: answer.raw });
  return answer.report;
}

async function readPage(ctx: Ctx, window: TimeWindow, recipientPlayerId: number | null, offset: number, limit: number) {
  const answer = await requestPage(ctx, window, recipientPlayerId, offset, limit);
  return recordPage(ctx, window, recipientPlayerId, offset, limit, answer);
}

/**
 * `asked`: the window's first page, asked for before its read began (the part before it was read meanwhile); taken
 * by the first read only, a read that starts over asks again.
 */
async function readWholeWindow(
  ctx: Ctx,
  window: TimeWindow,
  depth: number,
  asked?: Promise<PageAnswer>,
): Promise<ReadWindow> {
  for (let restart = 0; ; restart += 1) {
    const pagesBefore = ctx.pages.length;
    const progressBefore = { ...ctx.progress };
    try {
      return await readWindowOnce(ctx, window, depth, restart === 0 ? asked : undefined);
    } catch (error) {
      if (!(error instanceof WindowChangedError) || restart + 1 >= MAX_RESTARTS) throw error;
      // Pages of the abandoned read are not part of the snapshot.
      ctx.pages.length = pagesBefore;
      ctx.progress = { ...progressBefore, pagesFetched: ctx.progress.pagesFetched };
      await ctx.options.onRestart?.(ctx.pages);
      emit(ctx, "re-reading a window whose figures changed");
    }
  }
}

async function readWindowOnce(
  ctx: Ctx,
  window: TimeWindow,
  depth: number,
  asked?: Promise<PageAnswer>,
): Promise<ReadWindow> {
  let firstAnswer: PageAnswer;
  try {
    firstAnswer = await (asked ?? requestPage(ctx, window, null, 0, PAGE_SIZE));
    // An answer asked for ahead may have come before the pull was stopped.
    ctx.options.signal?.throwIfAborted();
  } catch (error) {
    const parts = partsForTooLarge(error);
    if (parts === null) throw error;
    return readSplitWindow(ctx, window, depth, parts);
  }
  const total = firstAnswer.report.pagination.total_count;
  const ahead = createLookahead(
    (offset, signal, onReceived) => requestPage(ctx, window, null, offset, PAGE_SIZE, signal, onReceived),
    {
      depth: ctx.options.lookahead ?? LOOKAHEAD_PAGES,
      pageSize: PAGE_SIZE,
      total,
      signal: ctx.options.signal,
      together: ctx.options.lookaheadTogether,
    },
  );
  try {
    return await readRecipientPages(ctx, window, depth, firstAnswer, ahead);
  } finally {
    // Whatever is still in flight when the read ends or stops is never part of the snapshot.
    ahead.cancel();
  }
}

/**
 * Asks for the window's figures once more (a page of one, not stored): changed since the first page (a refund moving a
 * reversal here), the window is read again, not failed for good on lines that do not add up to the first page's.
 */
async function refuseChangedSince(ctx: Ctx, window: TimeWindow, first: AttributionReport): Promise<void> {
  const again = await requestPage(ctx, window, null, 0, 1);
  ctx.options.signal?.throwIfAborted();
  if (!sameFigures(first, again.report))
    throw new WindowChangedError(`figures of ${formatWindow(window)} changed while a recipient's lines were read`);
}

/**
 * The pages of a window's recipients from the first, each next one asked for ahead while this one is stored. A part of
 * a window whose lines are handed over keeps only their facts.
 */
async function readRecipientPages(
  ctx: Ctx,
  window: TimeWindow,
  depth: number,
  firstAnswer: PageAnswer,
  ahead: Lookahead,
): Promise<ReadWindow> {
  const arrived = (offset: number, answer: PageAnswer) => {
    const { pagination, recipients } = answer.report;
    if (pagination.has_more && recipients.length > 0) ahead.plan(offset + recipients.length);
  };
  arrived(0, firstAnswer);
  const first = await recordPage(ctx, window, null, 0, PAGE_SIZE, firstAnswer);
  const total = first.pagination.total_count;
  ctx.progress.pagesEstimated += Math.max(0, Math.ceil(total / PAGE_SIZE) - 1);
  if (depth === 0) ctx.progress.recipientsTotal = total;
  emit(ctx, depth === 0 ? "reading recipients" : `reading sub-window ${formatWindow(window)}`);

  const handLines = depth > 0 ? ctx.handLines : undefined;
  // One of the two holds the recipients read: themselves, or with their lines handed over, the lines' facts.
  const recipients: AttributionRecipient[] = [];
  const facts: RecipientWith<LineFacts>[] = [];
  const count = () => recipients.length + facts.length;
  const subWindows: SubWindowRecord[] = [];
  let page = first;
  // A recipient's lines read apart after its page: the pages after it may have been asked for ahead, before a change
  // made meanwhile, so the figures are asked for once more at the end (refuseChangedSince).
  let readApart = false;
  for (;;) {
    const read: AttributionRecipient[] = [];
    for (const recipient of page.recipients) {
      if (recipient.periods_truncated || recipient.reversals_truncated) {
        readApart = true;
        const completed = await readRecipientLines(ctx, window, recipient, depth, subWindows);
        read.push(completeRecipient(window, recipient, completed.periods, completed.reversals));
        ctx.progress.linesFetched += completed.periods.length;
        ctx.progress.reversalsFetched += completed.reversals.length;
      } else {
        read.push(recipient);
        ctx.progress.linesFetched += recipient.periods.length;
        ctx.progress.reversalsFetched += recipient.reversals.length;
      }
      ctx.progress.recipientsFetched += 1;
    }
    if (handLines) {
      // Complete now (a truncated recipient's lines were read above, with the pages read by now).
      handLines(read, ctx.pages.length);
      for (const recipient of read) facts.push({ ...recipient, periods: recipient.periods.map(lineFacts) });
    } else {
      for (const recipient of read) recipients.push(recipient);
      if (depth === 0) ctx.options.onRecipients?.(read);
    }
    emit(ctx);
    if (!page.pagination.has_more) {
      if (readApart) await refuseChangedSince(ctx, window, first);
      break;
    }
    if (page.recipients.length === 0)
      throw new WindowChangedError("the service reported more recipients but sent none");
    const offset = count();
    const answer = await ahead.take(offset);
    // Nothing more is asked for once the pull is stopped.
    ctx.options.signal?.throwIfAborted();
    arrived(offset, answer);
    const next = await recordPage(ctx, window, null, offset, PAGE_SIZE, answer);
    // Offsets are only safe while the window stands still: the same totals on every page, or read it again.
    if (!sameFigures(first, next))
      throw new WindowChangedError(`figures of ${formatWindow(window)} changed between pages`);
    page = next;
  }
  if (count() !== total) {
    throw new WindowChangedError(`expected ${total} recipients in ${formatWindow(window)}, read ${count()}`);
  }
  const assembled = {
    window,
    report: first.report,
    notice: first.attribution_notice,
    generatedFirst: first.report.generated_at,
    generatedLast: page.report.generated_at,
    totals: first.totals,
    subWindows,
    notes: [],
  };
  return handLines
    ? { ...assembled, recipients: facts, linesWritten: true }
    : { ...assembled, recipients, linesWritten: false };
}

async function readSplitWindow(ctx: Ctx, window: TimeWindow, depth: number, parts: number): Promise<ReadWindow> {
  if (depth >= MAX_DEPTH)
    throw new SnapshotIncompleteError(`${formatWindow(window)} is still too large after ${depth} splits`);
  const windows = splitInto(window, parts);
  if (!windows) throw new SnapshotIncompleteError(`${formatWindow(window)} is too large and too short to split`);
  ctx.progress.pagesEstimated += windows.length - 1;
  ctx.progress.subWindows += windows.length;
  emit(ctx, `window too large: reading it as ${windows.length} sub-windows`);
  // The parts' lines go to onPart page by page as each part is read (only the window asked for hands them over), and
  // the read keeps their facts; otherwise the lines themselves, which the caller writes.
  if (depth === 0 && ctx.options.onPart) ctx.handLines = ctx.options.onPart;
  const assembled: AssembledWindow[] = [];
  const written: AssembledWindow<LineFacts>[] = [];
  // Unpaced (lookaheadTogether), each part's first page is asked for as the part before it begins: the service makes
  // that part's report while this process reads and stores the one before, instead of after.
  let asked: { answer: Promise<PageAnswer>; controller: AbortController } | null = null;
  const askFirst = (part: TimeWindow | undefined) => {
    if (!part || !ctx.options.lookaheadTogether || ctx.options.lookahead === 0) return null;
    const { controller, signal } = cancellable(ctx.options.signal);
    const answer = requestPage(ctx, part, null, 0, PAGE_SIZE, signal);
    // Seen only by the read that takes it; one never taken (the read failed before) is cancelled below.
    answer.catch(() => {});
    return { answer, controller };
  };
  try {
    for (const [index, part] of windows.entries()) {
      const pagesBefore = ctx.pages.length;
      const first = asked;
      asked = askFirst(windows[index + 1]);
      const result = await readWholeWindow(ctx, part, depth + 1, first?.answer);
      if (result.linesWritten !== Boolean(ctx.handLines))
        throw new Error("a part's lines were handed over otherwise than the window's");
      result.subWindows.unshift({
        scope: "window",
        recipientPlayerId: null,
        window: part,
        depth: depth + 1,
        reason: "window_too_large",
        pages: ctx.pages.slice(pagesBefore).filter((p) => p.recipientPlayerId === null).length,
      });
      if (result.linesWritten) written.push(result);
      else assembled.push(result);
    }
  } finally {
    // A part's first page asked for and never taken (the read ended or failed before it) is cancelled.
    asked?.controller.abort();
  }
  const merged: ReadWindow = ctx.handLines
    ? { ...mergeParts(window, written), linesWritten: true }
    : { ...mergeParts(window, assembled), linesWritten: false };
  if (depth === 0) ctx.progress.recipientsTotal = merged.recipients.length;
  return merged;
}

/**
 * Every renewal line and reversal row of one recipient in `window`, read over sub-windows sized from its counts and
 * split again wherever a part still comes back truncated. Reversal rows are per part; the caller merges them.
 */
async function readRecipientLines(
  ctx: Ctx,
  window: TimeWindow,
  recipient: AttributionRecipient,
  depth: number,
  subWindows: SubWindowRecord[],
): Promise<{ periods: RenewalLine[]; reversals: Reversal[] }> {
  const id = recipient.recipient.player_id;
  if (depth >= MAX_DEPTH)
    throw new SnapshotIncompleteError(`recipient ${id}: lines still truncated after ${depth} splits`);
  const needed = Math.max(recipient.renewal_count, recipient.reversal_count, recipient.periods.length + 1);
  const windows = splitInto(window, Math.max(2, Math.ceil(needed / LINES_PER_PART)));
  if (!windows) {
    throw new SnapshotIncompleteError(`recipient ${id}: more lines in ${formatWindow(window)} than one report carries`);
  }
  const reason = recipient.periods_truncated ? "periods_truncated" : "reversals_truncated";
  ctx.progress.pagesEstimated += windows.length;
  ctx.progress.subWindows += windows.length;
  emit(ctx, `recipient ${id}: reading ${windows.length} sub-windows for all of its lines`);
  const periods: RenewalLine[] = [];
  const reversals: Reversal[] = [];
  for (const part of windows) {
    const report = await readPage(ctx, part, id, 0, 1);
    subWindows.push({ scope: "recipient", recipientPlayerId: id, window: part, depth: depth + 1, reason, pages: 1 });
    const row = report.recipients.find((r) => r.recipient.player_id === id);
    if (!row) continue;
    if (row.periods_truncated || row.reversals_truncated) {
      const deeper = await readRecipientLines(ctx, part, row, depth + 1, subWindows);
      periods.push(...deeper.periods);
      reversals.push(...deeper.reversals);
    } else {
      periods.push(...row.periods);
      reversals.push(...row.reversals);
    }
    emit(ctx);
  }
  return { periods, reversals };
}

/** Reads and assembles the whole window. */
export async function fetchWindow(
  source: ReportSource,
  window: TimeWindow,
  options: FetchOptions = {},
): Promise<FetchedWindow> {
  const ctx: Ctx = {
    source,
    options,
    pages: [],
    progress: {
      phase: "starting",
      pagesFetched: 0,
      pagesEstimated: 1,
      recipientsFetched: 0,
      recipientsTotal: null,
      linesFetched: 0,
      reversalsFetched: 0,
      subWindows: 0,
    },
  };
  emit(ctx, "reading the first page");
  const assembled = await readWholeWindow(ctx, window, 0);
  ctx.progress.recipientsFetched = assembled.recipients.length;
  emit(ctx, "read every page");
  return { ...assembled, pages: ctx.pages };
}
