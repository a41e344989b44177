"use client";

import { formatCount } from "@/lib/format";
import { money } from "@/lib/money";
import type { ColumnDef } from "@tanstack/react-table";
import { DataTable } from "@/app/_components/data-table/data-table";
import { TableEmptyState } from "@/app/_components/data-table/empty-state";
import { FilterSelect } from "@/app/_components/data-table/filter-select";
import { Badge } from "@/app/_components/ui/badge";
import { TextLink } from "@/app/_components/ui/text-link";
import type { PayoutTableRow } from "@/db/queries/payouts";
import {
  type BatchContext,
  offersForSelection,
  type StatementFacts,
  statementVerdict,
} from "@/lib/payouts/offered-actions";
import type { TableState } from "@/lib/table-state";
import { FLAG_INFO, isPayoutFlag, stopsPaymentByHand } from "@/lib/payouts/flag-info";
import { type BulkActions, BulkBar } from "./bulk-bar";
import { FlagBadges, STATE_FILTER_OPTIONS, stateLabel } from "@/app/_components/payouts/flag-badges";
import { useNotice } from "@/app/_components/payouts/result-notice";
import { moneyColumn } from "@/app/_components/table/columns";

export type RecipientTableProps = {
  rows: PayoutTableRow[];
  total: number;
  state: TableState;
  sortColumns: readonly string[];
  pageSizes: readonly number[];
  windowHref: string;
  /** The window's batch, with the game the page was shown for (sent with its actions). */
  batch: { id: string; status: string; gameId: string } | null;
  /** recipient id -> flags overridden for that recipient. */
  overridden: Record<string, string[]>;
  canAct: boolean;
  /** Who is looking, for lib/payouts/offered-actions.ts: the bulk bar offers what it allows for the selected rows. */
  context: BatchContext | null;
  /** Window flags not overridden: they count against every statement. */
  openWindowFlags: number;
  /** Held rows' recipients whose hold this person may not release (load.ts ownFirstDetailsHeld). */
  ownFirstDetails: readonly number[];
  actions: BulkActions | null;
  methods: { value: string; label: string }[];
  today: string;
};

function columns(
  windowHref: string,
  overridden: Record<string, string[]>,
  hasBatch: boolean,
): ColumnDef<PayoutTableRow>[] {
  return [
    {
      // Sorting is done by the server; TanStack only offers a sort control for columns with an accessor.
      id: "recipient",
      accessorFn: (r) => r.recipientPlayerId,
      header: "Recipient",
      meta: { rowHeader: true, cellClassName: "min-w-36" },
      cell: ({ row }) => {
        const r = row.original;
        return (
          <div className="flex flex-col">
            <TextLink href={`${windowHref}/recipients/${r.recipientPlayerId}`}>
              {r.playerName ?? `Player ${r.recipientPlayerId}`}
            </TextLink>
            <span className="text-xs wrap-anywhere text-ink-muted">{breakableEmail(r.playerEmail)}</span>
            <span className="flex items-center gap-1 text-xs text-ink-muted">
              <span className="font-mono">#{r.recipientPlayerId}</span>
              {r.resolved ? null : <Badge tone="danger">Unresolved</Badge>}
              {r.inSnapshot ? null : <Badge tone="neutral">Carried balance only</Badge>}
            </span>
          </div>
        );
      },
    },
    {
      id: "renewals",
      accessorFn: (r) => r.renewalCount,
      header: "Renewals",
      sortDescFirst: true,
      meta: { align: "right" },
      cell: ({ row }) => <span className="tabular-nums">{formatCount(row.original.renewalCount)}</span>,
    },
    {
      id: "subscriptions",
      accessorFn: (r) => r.subscriptionCount,
      header: "Subs.",
      sortDescFirst: true,
      meta: { align: "right", label: "Subscriptions" },
      cell: ({ row }) => <span className="tabular-nums">{formatCount(row.original.subscriptionCount)}</span>,
    },
    moneyColumn<PayoutTableRow>({
      id: "gross",
      header: "Gross",
      label: "Gross attributed",
      value: (r) => r.grossAttributedUsd,
    }),
    moneyColumn<PayoutTableRow>({
      id: "reversed",
      header: "Reversed",
      label: "Reversed attributed",
      value: (r) => r.reversedAttributedUsd,
    }),
    moneyColumn<PayoutTableRow>({
      id: "net",
      header: "Net",
      label: "Net attributed",
      value: (r) => r.netAttributedUsd,
      className: "font-medium",
    }),
    moneyColumn<PayoutTableRow>({
      id: "carried_in",
      header: "Carried in",
      value: (r) => r.carriedInUsd,
      missing: "not prepared",
    }),
    moneyColumn<PayoutTableRow>({
      id: "payable",
      header: "Payable",
      value: (r) => r.payableUsd,
      className: "font-semibold",
      missing: "not prepared",
    }),
    {
      id: "flags",
      header: "Flags",
      cell: ({ row }) => (
        <FlagBadges
          flags={row.original.recipientFlags}
          overridden={overridden[row.original.recipientPlayerId] ?? []}
          wrap
        />
      ),
    },
    {
      id: "state",
      accessorFn: (r) => r.state,
      header: "State",
      cell: ({ row }) => {
        if (!hasBatch || !row.original.state) return <span className="text-xs text-ink-muted">Not prepared</span>;
        const s = stateLabel(row.original.state, row.original.undone);
        return (
          <span className="flex flex-col items-start gap-0.5">
            <Badge tone={s.tone}>{s.label}</Badge>
            {row.original.holdReason ? (
              <span className="min-w-24 max-w-40 text-xs text-ink-muted">{row.original.holdReason}</span>
            ) : null}
          </span>
        );
      },
    },
  ];
}

/** An address that wraps after its "@" first in a narrow column ("creator332@" / "demo.example"). */
function breakableEmail(email: string | null) {
  if (!email) return "no email";
  const at = email.lastIndexOf("@");
  if (at < 0) return email;
  return (
    <>
      {email.slice(0, at + 1)}
      <wbr />
      {email.slice(at + 1)}
    </>
  );
}

/** "Sam Lee (player 1002)", or "player 1002" when the service gave no name: how a row is named to a screen reader. */
export function recipientName(row: Pick<PayoutTableRow, "playerName" | "recipientPlayerId">): string {
  return row.playerName ? `${row.playerName} (player ${row.recipientPlayerId})` : `player ${row.recipientPlayerId}`;
}

export function RecipientTable(props: RecipientTableProps) {
  const { batch, canAct, actions } = props;
  const onResult = useNotice();
  const { context } = props;
  // A statement's facts as the domain sees them: its state and the flags still blocking it.
  const facts = (row: PayoutTableRow): StatementFacts | null => {
    if (!row.state) return null;
    const open = row.recipientFlags.filter((f) => !(props.overridden[row.recipientPlayerId] ?? []).includes(f));
    return {
      state: row.state,
      openFlags: props.openWindowFlags + open.length,
      windowFlags: props.openWindowFlags,
      stopsPayment: open.filter(stopsPaymentByHand).map((f) => (isPayoutFlag(f) ? FLAG_INFO[f].label : f)),
      ownFirstDetails: props.ownFirstDetails.includes(row.recipientPlayerId),
      availableUsd: money(row.netAttributedUsd)
        .plus(row.carriedInUsd ?? "0")
        .toFixed(2),
    };
  };
  const rowFacts = new Map(props.rows.map((row) => [row.statementId ?? "", facts(row)] as const));
  const payableById = new Map(props.rows.map((row) => [row.statementId ?? "", row.payableUsd] as const));
  const selectable = Boolean(
    canAct &&
      actions &&
      batch &&
      context &&
      offersForSelection(
        context,
        [...rowFacts.values()].filter((f) => f !== null),
      ).length > 0,
  );
  return (
    <DataTable
      caption="Recipient payouts (amounts in USD)"
      columns={columns(props.windowHref, props.overridden, Boolean(batch))}
      data={props.rows}
      total={props.total}
      state={props.state}
      sortColumns={props.sortColumns}
      pageSizes={props.pageSizes}
      getRowId={(row) => row.statementId ?? `r${row.recipientPlayerId}`}
      search={{ label: "Search recipients", placeholder: "Name, email or player id" }}
      rowClassName={(row) => (row.state === "held" ? "bg-warning-soft/40" : undefined)}
      toolbar={
        <>
          <FilterSelect
            name="show"
            label="Show"
            allLabel="All recipients"
            options={[
              { value: "flagged", label: "Flagged" },
              { value: "unresolved", label: "Unresolved" },
              { value: "negative", label: "Negative net" },
              { value: "reversals", label: "With reversals" },
              { value: "carried_in", label: "With a carried balance" },
            ]}
          />
          {batch ? (
            <FilterSelect name="state" label="Payout state" allLabel="Any state" options={STATE_FILTER_OPTIONS} />
          ) : null}
        </>
      }
      emptyState={
        <TableEmptyState title="No recipients in this snapshot">
          Nobody earned a revenue share in this window.
        </TableEmptyState>
      }
      selection={
        selectable && actions && batch
          ? {
              rowLabel: recipientName,
              actions: (ids, clear) =>
                ids.length === 0 ? null : (
                  <BulkBar
                    ids={ids}
                    applicableIds={(action) =>
                      ids.filter((id) => {
                        const f = rowFacts.get(id);
                        return Boolean(context && f && statementVerdict(action, context, f).kind === "allowed");
                      })
                    }
                    payableUsdOf={(id) => payableById.get(id) ?? undefined}
                    batch={batch}
                    offers={
                      context
                        ? offersForSelection(
                            context,
                            ids.map((id) => rowFacts.get(id)).filter((f) => f !== null && f !== undefined),
                          )
                        : []
                    }
                    actions={actions}
                    methods={props.methods}
                    today={props.today}
                    onResult={(result) => {
                      onResult(result);
                      // Done: the statements it changed are no longer the selection's.
                      if (result?.ok) clear();
                    }}
                  />
                ),
            }
          : undefined
      }
    />
  );
}
