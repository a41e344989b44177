import { formatCount } from "@/lib/format";
import { z } from "zod";
import { monthKeySchema, monthWindow, type TimeWindow, windowInputSchema } from "@/lib/time";

/**
 * What a person types to choose a window (the Payouts form, the CLI): a month, or any start and end (ISO dates or
 * date-times, end exclusive). Errors name the field; the form's `mode` says which of them it shows.
 */
export const snapshotWindowInputSchema = z
  .object({
    mode: z.enum(["month", "custom"]).optional(),
    month: z.string().trim().optional(),
    start: z.string().trim().optional(),
    end: z.string().trim().optional(),
  })
  .transform((value, ctx): TimeWindow => {
    const month = value.month || undefined;
    const start = value.start || undefined;
    const end = value.end || undefined;
    if (month && (start || end)) {
      ctx.addIssue({ code: "custom", path: ["month"], message: "give a month, or a start and an end, not both" });
      return z.NEVER;
    }
    if (month) {
      const parsed = monthKeySchema.safeParse(month);
      if (!parsed.success) {
        ctx.addIssue({
          code: "custom",
          path: ["month"],
          message: parsed.error.issues[0]?.message ?? "must be a month such as 2026-03",
        });
        return z.NEVER;
      }
      return monthWindow(parsed.data);
    }
    if (!start && value.mode === "month") {
      ctx.addIssue({ code: "custom", path: ["month"], message: "is required (a month such as 2026-03)" });
      return z.NEVER;
    }
    if (!start) {
      ctx.addIssue({
        code: "custom",
        path: ["start"],
        message: "is required (a date such as 2026-03-01), or give a month",
      });
      return z.NEVER;
    }
    if (!end) {
      ctx.addIssue({ code: "custom", path: ["end"], message: "is required (exclusive, such as 2026-04-01)" });
      return z.NEVER;
    }
    const window = windowInputSchema.safeParse({ start, end });
    if (!window.success) {
      for (const issue of window.error.issues)
        ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
      return z.NEVER;
    }
    return window.data;
  });

export type ProgressFigures = {
  phase: string;
  pagesFetched: number;
  pagesEstimated: number | null;
  recipientsFetched: number;
  recipientsTotal: number | null;
  linesFetched: number;
  rateLimited: number;
  /** Requests sent again after a failure; absent where not known. */
  retries?: number;
  etaMs: number | null;
};

export type PullStatus = "queued" | "running" | "retrying" | "complete" | "failed";

/** What every view of a pull shows of its progress (the card, the windows table, the CLI), computed once here. */
export type PullProgressSummary = {
  active: boolean;
  pagesDone: number;
  /** The estimate, never below the pages already read (estimates grow as sub-windows appear), at least 1. */
  pagesTotal: number;
  /** 0..100; 100 only once published, at most 99 before. */
  percent: number;
  /** "4 / 6" */
  pages: string;
  /** "300 / 2,000", or "300" while the total is unknown. */
  recipients: string;
};

const ACTIVE_STATUSES: ReadonlySet<PullStatus> = new Set(["queued", "running", "retrying"]);

export function isPullActive(status: PullStatus): boolean {
  return ACTIVE_STATUSES.has(status);
}

/** The one reading of a pull's figures. */
export function summarizePullProgress(p: {
  status: PullStatus;
  pagesFetched: number;
  pagesEstimated: number | null;
  recipientsFetched: number;
  recipientsTotal: number | null;
}): PullProgressSummary {
  const pagesTotal = Math.max(p.pagesEstimated ?? 0, p.pagesFetched, 1);
  const percent = p.status === "complete" ? 100 : Math.min(99, Math.floor((p.pagesFetched / pagesTotal) * 100));
  const recipientsTotal = p.recipientsTotal === null ? null : Math.max(p.recipientsTotal, p.recipientsFetched);
  return {
    active: isPullActive(p.status),
    pagesDone: p.pagesFetched,
    pagesTotal,
    percent,
    pages: `${formatCount(p.pagesFetched)} / ${formatCount(pagesTotal)}`,
    recipients:
      recipientsTotal === null
        ? formatCount(p.recipientsFetched)
        : `${formatCount(p.recipientsFetched)} / ${formatCount(recipientsTotal)}`,
  };
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
}

/** "pages 3/21 · recipients 300/2,000 · lines 3,012 · 429s 0 · retries 0 · ETA 4s · reading recipients" */
export function formatProgress(p: ProgressFigures): string {
  const summary = summarizePullProgress({ status: "running", ...p });
  // The same figures as the page, written compactly for a terminal line.
  const compact = (text: string) => text.replace(" / ", "/");
  return [
    `pages ${compact(summary.pages)}`,
    `recipients ${compact(summary.recipients)}`,
    `lines ${formatCount(p.linesFetched)}`,
    `429s ${formatCount(p.rateLimited)}`,
    p.retries === undefined ? "" : `retries ${formatCount(p.retries)}`,
    `ETA ${p.etaMs === null ? "…" : formatDuration(p.etaMs)}`,
    p.phase,
  ]
    .filter(Boolean)
    .join(" · ");
}
