import { HeadCells } from "@/app/_components/table/columns";
import { Money } from "@/app/_components/ui/money";
import { Stat, StatGroup } from "@/app/_components/ui/stat";
import { RowTh, SimpleTable, Td, Tr } from "@/app/_components/table/table";
import type { SnapshotHeader } from "@/db/queries/snapshots";
import { countOf, formatCount } from "@/lib/format";
import { UNATTRIBUTED_REASON_INFO } from "@/lib/payouts/flag-info";
import { Panel } from "./panel";

/** The window's totals as the service reported them, and its renewals that earned nobody a share, by reason. */
export function WindowTotals({ totals }: { totals: SnapshotHeader["totals"] }) {
  const reasons = Object.entries(totals.unattributedReasons);
  return (
    <>
      <Panel
        id="totals"
        className="lg:col-span-2"
        title="Totals of the window"
        summary={
          <>
            Net attributed <Money value={totals.netAttributedUsd} currency="USD" />,{" "}
            {countOf(totals.recipientCount, "recipient")}
          </>
        }
      >
        <StatGroup label="Totals of the window">
          <Stat
            label="Net attributed"
            value={<Money value={totals.netAttributedUsd} currency="USD" />}
            hint={countOf(totals.recipientCount, "recipient")}
          />
          <Stat
            label="Gross attributed"
            value={<Money value={totals.grossAttributedUsd} currency="USD" />}
            hint={`${countOf(totals.renewalsWithAttribution, "renewal")} with attribution`}
          />
          <Stat
            label="Reversed attributed"
            value={<Money value={totals.reversedAttributedUsd} currency="USD" />}
            hint={
              `${countOf(totals.refundEventsInWindow, "refund")}, ` +
              `${formatCount(totals.reversalsWithoutReceipts)} without per-refund detail`
            }
          />
          <Stat
            label="Settled gross"
            value={<Money value={totals.settledGrossUsd} currency="USD" />}
            hint={`${countOf(totals.renewalsSettled, "renewal")} settled`}
          />
          <Stat
            label="Service fee"
            value={<Money value={totals.invoFeeUsd} currency="USD" />}
            hint="Never reversed by a refund"
          />
          <Stat
            label="Partner revenue"
            value={<Money value={totals.partnerRevenueUsd} currency="USD" />}
            hint={
              <>
                settled <Money value={totals.partnerRevenueSettledUsd} /> − reversed{" "}
                <Money value={totals.partnerRevenueReversedUsd} />
              </>
            }
          />
          <Stat
            label="Settled then fully refunded"
            value={formatCount(totals.renewalsSettledThenFullyReversed)}
            hint="Pay nothing on these"
          />
        </StatGroup>
      </Panel>

      <Panel
        id="unattributed"
        className="lg:col-span-2"
        title="Renewals without attribution"
        summary={`${countOf(totals.renewalsWithoutAttribution, "renewal")} earned nobody a share`}
        open={reasons.some(([reason, count]) => count > 0 && UNATTRIBUTED_REASON_INFO[reason]?.blocks)}
      >
        <SimpleTable
          caption="Unattributed renewals by reason"
          frame="none"
          head={<HeadCells columns={["Reason", ["Renewals", "right"], "What it means for payment"]} />}
        >
          {reasons.map(([reason, count]) => {
            const info = UNATTRIBUTED_REASON_INFO[reason];
            return (
              <Tr key={reason}>
                <RowTh>
                  {info?.label ?? reason}
                  <span className="block font-mono text-xs text-ink-muted" title="The reason as the service reports it">
                    {reason}
                  </span>
                </RowTh>
                <Td align="right" className="tabular-nums">
                  {formatCount(count)}
                </Td>
                <Td className={count > 0 && info?.blocks ? "font-medium text-danger-ink" : "text-ink-muted"}>
                  {info?.meaning ??
                    "A reason Payout Desk does not know yet: ask the service what it means before paying."}
                </Td>
              </Tr>
            );
          })}
        </SimpleTable>
      </Panel>
    </>
  );
}
