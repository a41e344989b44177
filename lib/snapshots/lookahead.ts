import "server-only";
import type { StoredPage } from "@/db/queries/snapshot-store";
import type { AttributionReport } from "@/lib/service/schemas";

/** One answer of the aggregate report: its parsed value, the body it was parsed from, and when it came. */
export type PageAnswer = { report: AttributionReport; raw: StoredPage["body"]; fetchedAt: Date };

/** A request of its own to cancel, also ended by `signal` (the read's): what every page asked for ahead is given. */
export function cancellable(signal?: AbortSignal): { controller: AbortController; signal: AbortSignal } {
  const controller = new AbortController();
  return { controller, signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal };
}

/** Pages of a window's recipients asked for ahead of the one being parsed and stored. */
export const LOOKAHEAD_PAGES = 2;

const noop = () => {};

type Ahead = {
  offset: number;
  controller: AbortController;
  answer: Promise<PageAnswer>;
  /**
   * Settles once the service has answered it successfully (read in full, not yet parsed) or the request ended
   * otherwise (after a 429, once its wait was kept and the page asked again).
   */
  received: Promise<void>;
};

/**
 * The next pages of one window's recipients, asked for while the page before them is still being parsed and stored,
 * so that the service works on them meanwhile instead of waiting for this process. Once the first page gave
 * total_count, the offsets to come are known (full pages of `pageSize` until the total); each request still goes
 * through the client and so through the pacer, and the limits hold whatever is in flight.
 *
 * Nothing here records a page: an answer becomes part of the snapshot only when the reader takes it, in offset order,
 * after everything read for the page before it. A request whose offset turns out wrong (a page came back shorter), or
 * that is still in flight when the read stops (abort, an error, a window that changed), is cancelled and its answer
 * dropped.
 */
export type Lookahead = {
  /** The page ending at `next` has arrived: keeps up to the depth's requests in flight for the pages from `next`. */
  plan(next: number): void;
  /** The answer for `offset`: the one asked for ahead when it was, else asked now. */
  take(offset: number): Promise<PageAnswer>;
  /** Cancels every request still in flight. */
  cancel(): void;
};

export function createLookahead(
  request: (offset: number, signal?: AbortSignal, onReceived?: () => void) => Promise<PageAnswer>,
  options: { depth: number; pageSize: number; total: number; signal?: AbortSignal; together?: boolean },
): Lookahead {
  let queue: Ahead[] = [];
  // Paced, each request leaves once the service has answered the one before it (while that answer is parsed here):
  // the service never holds two of them at once, so every request reaches it as soon as the pacer admitted it (the
  // limits are counted on arrival there; with two out at once it counted a queued one later: 429s). Unpaced
  // (`together`), no limit counts them: they all leave at once, and the service answers the next while this process
  // is busy with the last.
  const start = (offset: number, after: Promise<void> | null): Ahead => {
    const { controller, signal } = cancellable(options.signal);
    let onReceived = noop;
    const received = new Promise<void>((resolve) => {
      onReceived = resolve;
    });
    const answer = (after ?? Promise.resolve()).then(() => {
      signal.throwIfAborted();
      return request(offset, signal, onReceived);
    });
    answer.then(onReceived, onReceived);
    // A cancelled or failed request is only seen by the reader that takes it; nobody else waits on it.
    answer.catch(noop);
    return { offset, controller, answer, received };
  };
  const lookahead: Lookahead = {
    plan(next) {
      if (queue[0] && queue[0].offset !== next) lookahead.cancel();
      const last = queue[queue.length - 1];
      let offset = last ? last.offset + options.pageSize : next;
      while (queue.length < options.depth && offset < options.total) {
        queue.push(start(offset, options.together ? null : (queue[queue.length - 1]?.received ?? null)));
        offset += options.pageSize;
      }
    },
    take(offset) {
      const head = queue[0];
      if (head && head.offset === offset) {
        queue.shift();
        return head.answer;
      }
      lookahead.cancel();
      return request(offset, options.signal);
    },
    cancel() {
      for (const ahead of queue) ahead.controller.abort();
      queue = [];
    },
  };
  return lookahead;
}
