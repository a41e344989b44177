"use client";

import type { ColumnDef } from "@tanstack/react-table";
import { DataTable } from "@/app/_components/data-table/data-table";
import { TableEmptyState } from "@/app/_components/data-table/empty-state";
import { FilterSelect } from "@/app/_components/data-table/filter-select";
import { Badge } from "@/app/_components/ui/badge";
import { DateTime } from "@/app/_components/ui/date-time";
import { TextLink } from "@/app/_components/ui/text-link";
import type { TableState } from "@/lib/table-state";
import { describeEffect, EVENT_STATUS_LABELS, WEBHOOK_EVENT_STATUSES } from "@/lib/webhooks/describe";
import { DayRangeFilter } from "./day-range-filter";
import { Absent } from "@/app/_components/ui/absent";

export type EventRow = {
  id: string;
  eventId: string;
  eventType: string;
  subscriptionId: string | null;
  occurredAt: string | null;
  receivedAt: string;
  status: string;
  signedWith: "current" | "previous";
  effect: Record<string, unknown> | null;
  lastError: string | null;
};

const columns: ColumnDef<EventRow>[] = [
  {
    id: "occurred_at",
    header: "Event time",
    cell: ({ row }) =>
      row.original.occurredAt ? <DateTime value={row.original.occurredAt} seconds focusable={false} /> : <Absent />,
  },
  {
    id: "event_type",
    header: "Type",
    meta: { rowHeader: true },
    cell: ({ row }) => (
      <TextLink
        href={`/webhooks/${row.original.id}`}
        className="font-mono text-xs"
        aria-label={`${row.original.eventType}, event ${row.original.eventId}`}
      >
        {row.original.eventType}
      </TextLink>
    ),
  },
  {
    id: "subscription",
    header: "Subscription",
    cell: ({ row }) =>
      row.original.subscriptionId ? (
        <TextLink
          href={`/subscriptions/${encodeURIComponent(row.original.subscriptionId)}`}
          className="font-mono text-xs"
        >
          {row.original.subscriptionId}
        </TextLink>
      ) : null,
  },
  {
    id: "status",
    header: "Status",
    cell: ({ row }) => {
      const status = EVENT_STATUS_LABELS[row.original.status] ?? {
        label: row.original.status,
        tone: "neutral" as const,
      };
      return <Badge tone={status.tone}>{status.label}</Badge>;
    },
  },
  {
    id: "effect",
    header: "What it did",
    meta: { cellClassName: "min-w-56 text-ink-muted" },
    cell: ({ row }) => describeEffect(row.original),
  },
  {
    id: "received_at",
    header: "Received",
    cell: ({ row }) => (
      <span className="flex flex-wrap items-center gap-1.5">
        <DateTime value={row.original.receivedAt} seconds focusable={false} />
        {row.original.signedWith === "previous" ? (
          <Badge
            tone="warning"
            title="Signed with the previous signing secret (rotation in progress)"
            focusable={false}
          >
            previous secret
          </Badge>
        ) : null}
      </span>
    ),
  },
];

export function EventsTable({
  rows,
  total,
  state,
  sortColumns,
  types,
}: {
  rows: EventRow[];
  total: number;
  state: TableState;
  sortColumns: readonly string[];
  types: string[];
}) {
  return (
    <DataTable
      caption={state.sort === "received_at" && state.dir === "desc" ? "Webhook events, newest first" : "Webhook events"}
      columns={columns}
      data={rows}
      total={total}
      state={state}
      sortColumns={sortColumns}
      getRowId={(row) => row.id}
      search={{ label: "Subscription id", placeholder: "SUB_…" }}
      toolbar={
        <>
          <FilterSelect
            name="type"
            label="Type"
            allLabel="All types"
            options={types.map((type) => ({ value: type, label: type }))}
          />
          <FilterSelect
            name="status"
            label="Status"
            allLabel="Any status"
            options={WEBHOOK_EVENT_STATUSES.map((status) => ({
              value: status,
              label: EVENT_STATUS_LABELS[status]?.label ?? status,
            }))}
          />
          <DayRangeFilter />
        </>
      }
      emptyState={
        <TableEmptyState title="No events received yet">
          Events appear here as the service delivers them to this game&apos;s webhook URL.
        </TableEmptyState>
      }
    />
  );
}
