import type { StoredPage } from "@/db/queries/snapshot-store";
import type { AttributionRecipient, AttributionReport } from "@/lib/service/schemas";
import type { AssembledWindow, LineFacts } from "./merge";

/** What reading a window's pages (lib/snapshots/fetch.ts) takes and gives. */

/** One page read, with its body as the service sent it (stored as it is: db/queries/snapshot-store.ts). */
export type PageRecord = StoredPage;
/**
 * What the read keeps of a page: its place, not its text. The body goes to onPage (the store writes it) and is not
 * held until the read ends: a month of a large studio is thousands of pages of up to a hundred kilobytes each.
 */
export type PageInfo = Omit<PageRecord, "body">;

export type FetchProgress = {
  phase: string;
  pagesFetched: number;
  pagesEstimated: number;
  recipientsFetched: number;
  recipientsTotal: number | null;
  linesFetched: number;
  reversalsFetched: number;
  subWindows: number;
};

/** One page of the aggregate report with the text it was parsed from. */
export type ReportSource = {
  /** `onReceived` is called once the service's answer has been read in full, before it is parsed. */
  report(
    input: { start: string; end: string; recipientPlayerId?: number; limit: number; offset: number },
    signal?: AbortSignal,
    onReceived?: () => void,
  ): Promise<{ report: AttributionReport; raw: PageRecord["body"] }>;
};

export type FetchOptions = {
  signal?: AbortSignal;
  onProgress?: (progress: FetchProgress) => void;
  /**
   * Called after each page is read, with its body: the only time the read hands the text out (a store writes it here;
   * tests use it to stop a pull part-way).
   */
  onPage?: (page: PageRecord) => void | Promise<void>;
  /**
   * Recipients of the requested window that are final (every line read), in the service's order, page by page; only
   * when the window is read in one piece. A store can write them while the next pages are read.
   */
  onRecipients?: (recipients: readonly AttributionRecipient[]) => void;
  /**
   * A window read in parts: the recipients of each page of a part once their lines are complete, with the pages read
   * by then. Their lines are final (a line belongs to the one part it settled in); their figures are the part's only.
   * A store can write the lines while the next pages are read; a restart that keeps fewer pages voids those handed
   * over after them. Given this, the read keeps only the facts of each line (the window comes back `linesWritten`).
   */
  onPart?: (recipients: readonly AttributionRecipient[], pagesRead: number) => void;
  /**
   * A window is read again: everything passed to onRecipients is void, and of the pages read so far only `kept`
   * (the first ones) remain part of the snapshot.
   */
  onRestart?: (kept: readonly PageInfo[]) => Promise<void>;
  /**
   * Pages of a window's recipients asked for ahead of the one being stored (default LOOKAHEAD_PAGES; 0 reads one page
   * after another).
   */
  lookahead?: number;
  /**
   * The pages asked for ahead may be at the service together: nothing paces the calls (the game's pacing is off), so
   * no limit counts their arrival. Otherwise each leaves once the one before it is answered.
   */
  lookaheadTogether?: boolean;
};

/**
 * A window as read: with its lines, or, when it was read in parts and each part's lines were handed to onPart, with
 * only their facts (the lines themselves are the store's).
 */
export type ReadWindow =
  | (AssembledWindow & { linesWritten: false })
  | (AssembledWindow<LineFacts> & { linesWritten: true });

export type FetchedWindow = ReadWindow & { pages: PageInfo[] };

/** What one read of a window carries along (lib/snapshots/fetch.ts). */
export type FetchContext = {
  source: ReportSource;
  options: FetchOptions;
  pages: PageInfo[];
  progress: FetchProgress;
  /**
   * The window asked for is read in parts and its lines go to onPart: each page of a part hands its recipients' lines
   * over once they are complete, and the read keeps their facts only.
   */
  handLines?: (recipients: readonly AttributionRecipient[], pagesRead: number) => void;
};
