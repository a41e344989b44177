import { z } from "zod";
import { monthKeySchema, monthWindow, type TimeWindow, windowInputSchema } from "@/lib/time";

/**
 * What a person types to choose a window (the Payouts form, the CLI): a month, or any start and end (ISO dates or
 * date-times, end exclusive). Errors name the field.
 */
export const snapshotWindowInputSchema = z
  .object({
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
        ctx.addIssue({ code: "custom", path: ["month"], message: parsed.error.issues[0]?.message ?? "must be a month such as 2026-03" });
        return z.NEVER;
      }
      return monthWindow(parsed.data);
    }
    if (!start) {
      ctx.addIssue({ code: "custom", path: ["start"], message: "is required (a date such as 2026-03-01), or give a month" });
      return z.NEVER;
    }
    if (!end) {
      ctx.addIssue({ code: "custom", path: ["end"], message: "is required (exclusive, such as 2026-04-01)" });
      return z.NEVER;
    }
    const window = windowInputSchema.safeParse({ start, end });
    if (!window.success) {
      for (const issue of window.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
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
  etaMs: number | null;
};

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
}

/** "pages 3/21 · recipients 300/2,000 · lines 3,012 · 429s 0 · ETA 4s · reading recipients" */
export function formatProgress(p: ProgressFigures): string {
  const n = (value: number) => value.toLocaleString("en-US");
  const of = (done: number, total: number | null) => (total === null ? n(done) : `${n(done)}/${n(Math.max(total, done))}`);
  return [
    `pages ${of(p.pagesFetched, p.pagesEstimated)}`,
    `recipients ${of(p.recipientsFetched, p.recipientsTotal)}`,
    `lines ${n(p.linesFetched)}`,
    `429s ${n(p.rateLimited)}`,
    `ETA ${p.etaMs === null ? "…" : formatDuration(p.etaMs)}`,
    p.phase,
  ]
    .filter(Boolean)
    .join(" · ");
}
