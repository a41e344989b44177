import { z } from "zod";
import { WEBHOOK_EVENT_STATUSES } from "@/lib/webhooks/describe";
import { defineTableState, readParam, type SearchParamsInput } from "@/lib/table-state";
import { parseInstant, MS_PER_DAY } from "@/lib/time";

/** The event log's table state in the URL: sort, page, status filter and `q` (a subscription id). */
export const eventTable = defineTableState({
  sortColumns: ["received_at", "occurred_at", "event_type"] as const,
  defaultSort: "received_at",
  defaultDir: "desc",
  pageSizes: [25, 50, 100],
  filters: { status: WEBHOOK_EVENT_STATUSES },
});

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Filters the table-state definition cannot list in advance: the event type (types we do not know are filterable
 * too) and the event time as two UTC days, `from` and `to`, both inclusive. Anything unreadable is dropped.
 */
const extraSchema = z.object({
  type: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,100}$/)
    .optional()
    .catch(undefined),
  from: z
    .string()
    .regex(DAY, { abort: true })
    .refine((v) => parseInstant(v) !== null)
    .optional()
    .catch(undefined),
  to: z
    .string()
    .regex(DAY, { abort: true })
    .refine((v) => parseInstant(v) !== null)
    .optional()
    .catch(undefined),
});

export type EventLogFilters = z.infer<typeof extraSchema> & { fromMs?: number; toMs?: number };

export function parseEventLogFilters(input: SearchParamsInput): EventLogFilters {
  const parsed = extraSchema.parse({
    type: readParam(input, "type"),
    from: readParam(input, "from"),
    to: readParam(input, "to"),
  });
  const fromMs = parsed.from ? (parseInstant(parsed.from) ?? undefined) : undefined;
  const toDay = parsed.to ? parseInstant(parsed.to) : null;
  return { ...parsed, fromMs, toMs: toDay === null ? undefined : toDay + MS_PER_DAY };
}
