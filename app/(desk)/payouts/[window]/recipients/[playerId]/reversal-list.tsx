import { HeadCells, MoneyTd } from "@/app/_components/table/columns";
import { Badge } from "@/app/_components/ui/badge";
import { DateTime } from "@/app/_components/ui/date-time";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Money } from "@/app/_components/ui/money";
import { TextLink } from "@/app/_components/ui/text-link";
import { SimpleTable, Td, Tr } from "@/app/_components/table/table";
import type { SnapshotReversalRow } from "@/db/queries/snapshot-evidence";
import { formatCount } from "@/lib/format";

/** How the service worked out a reversal, in plain words; the service's code stays in the tooltip. */
const REVERSAL_BASIS: Record<string, { label: string; detail: string }> = {
  refund_receipts: { label: "Exact, per refund", detail: "Reversed refund by refund, each in the window it happened" },
  period_row: {
    label: "Estimated for the whole period",
    detail:
      "No per-refund detail: the whole reversal is reported in the window of the latest refund, and partner revenue " +
      "taken back is not shown",
  },
};

const PARTNER_REVERSAL_BASIS: Record<string, string> = {
  clawback: "Taken back from partner revenue",
  sale_fee_row_reversed: "Sale fee reversed",
  none: "Not reversed",
};

/** The reversals reported in the window for one recipient, each with its refund events. */
export function ReversalList({ reversals, total }: { reversals: SnapshotReversalRow[]; total: number }) {
  return (
    <section aria-labelledby="reversals-heading" className="mb-6">
      <h2 id="reversals-heading" className="mb-2 text-sm font-semibold text-ink">
        Reversals reported in this window ({formatCount(total)})
      </h2>
      {reversals.length < total ? (
        <p className="mb-2 text-sm text-ink-muted">
          The first {formatCount(reversals.length)} by their latest refund are shown; the snapshot&apos;s reversals CSV
          holds all {formatCount(total)}.
        </p>
      ) : null}
      {reversals.length === 0 ? (
        <EmptyState title="No reversals">
          No refund in this window reversed this recipient&apos;s attribution.
        </EmptyState>
      ) : (
        <div className="flex flex-col gap-3">
          {reversals.map((r) => (
            <div key={r.periodId} className="rounded-lg border border-line bg-surface">
              <div className="flex flex-wrap items-center gap-x-4 gap-y-1 border-b border-line px-3 py-2 text-sm">
                <TextLink href={`/subscriptions/periods/${r.periodId}`}>Period {r.periodId}</TextLink>
                <TextLink href={`/subscriptions/${encodeURIComponent(r.subscriptionId)}`} className="font-mono text-xs">
                  {r.subscriptionId}
                </TextLink>
                <span>seq {r.periodSeq}</span>
                <span>
                  Reversed here <Money value={r.reversedAttributedUsd} currency="USD" className="font-semibold" />
                  {" of "}
                  <Money value={r.originallyAttributedUsd} /> attributed
                </span>
                <Badge
                  tone={r.reversalBasis === "refund_receipts" ? "neutral" : "warning"}
                  title={`${REVERSAL_BASIS[r.reversalBasis]?.detail ?? ""} (service code: ${r.reversalBasis})`}
                >
                  {REVERSAL_BASIS[r.reversalBasis]?.label ?? r.reversalBasis}
                </Badge>
                {r.netsToZeroInWindow ? (
                  <Badge tone="info" title="Settled and fully refunded inside this window: pay nothing">
                    nets to zero in window
                  </Badge>
                ) : null}
                {r.settledInThisWindow ? null : (
                  <span className="text-xs text-ink-muted">
                    settled earlier
                    {r.paidAt ? (
                      <>
                        {" "}
                        (<DateTime value={r.paidAt.toISOString()} focusable={false} />)
                      </>
                    ) : null}
                  </span>
                )}
              </div>
              <SimpleTable
                caption={`Refund events of period ${r.periodId}`}
                frame="none"
                dense
                head={
                  <HeadCells
                    columns={[
                      "Refunded at",
                      ["Refunded (USD)", "right"],
                      ["Cumulative before", "right"],
                      ["Cumulative after", "right"],
                      ["Attribution reversed", "right"],
                      ["Partner revenue reversed", "right"],
                      "How it was reversed",
                    ]}
                  />
                }
              >
                {r.events.map((e) => (
                  <Tr key={e.seq}>
                    <Td>
                      <DateTime value={e.refundedAt.toISOString()} seconds focusable={false} />
                    </Td>
                    <Td align="right">
                      <Money value={e.refundedAmountUsd} />
                      {e.isFullRefund ? <span className="ml-1 text-xs text-ink-muted">full</span> : null}
                    </Td>
                    <MoneyTd value={e.cumulativeRefundedBeforeUsd} />
                    <MoneyTd value={e.cumulativeRefundedAfterUsd} />
                    <MoneyTd value={e.reversedAttributedUsd} />
                    <MoneyTd value={e.partnerRevenueReversedUsd} />
                    <Td className="text-xs" title={`Service code: ${e.partnerRevenueReversalBasis}`}>
                      {PARTNER_REVERSAL_BASIS[e.partnerRevenueReversalBasis] ?? e.partnerRevenueReversalBasis}
                    </Td>
                  </Tr>
                ))}
                {r.events.length === 0 ? (
                  <Tr>
                    <Td className="text-ink-muted" colSpan={7}>
                      No per-refund detail from the service: refunded to date <Money value={r.refundedToDateUsd} />.
                    </Td>
                  </Tr>
                ) : null}
              </SimpleTable>
              {r.note ? <p className="border-t border-line px-3 py-1.5 text-xs text-ink-muted">{r.note}</p> : null}
            </div>
          ))}
        </div>
      )}
    </section>
  );
}

/** The part of the reversals listed that another window's approved batch deducted already: not deducted again. */
export function DeductedBefore({ amountUsd }: { amountUsd: string }) {
  return (
    <span>
      <Money value={amountUsd} currency="USD" />{" "}
      <span className="text-xs text-ink-muted">
        of the reversals listed, reported again after a later refund: another window&apos;s batch deducted it, so this
        statement does not
      </span>
    </span>
  );
}
