import { Badge } from "@/app/_components/ui/badge";
import { Card } from "@/app/_components/ui/card";
import { DateTime } from "@/app/_components/ui/date-time";
import { Money } from "@/app/_components/ui/money";
import { TextLink } from "@/app/_components/ui/text-link";
import type { SnapshotDisputeRow } from "@/db/queries/disputes";
import type { FlagOverride } from "@/lib/payouts/flags";

const STATUS: Record<SnapshotDisputeRow["status"], { label: string; tone: "danger" | "success" | "warning" }> = {
  open: { label: "Open", tone: "warning" },
  won: { label: "Closed won", tone: "success" },
  lost: { label: "Closed lost", tone: "danger" },
};

/** Chargebacks on this recipient's renewals in the window, with what each means for the payout. */
export function DisputeList({ disputes, overrides, hasBatch }: { disputes: SnapshotDisputeRow[]; overrides: FlagOverride[]; hasBatch: boolean }) {
  return (
    <Card
      title="Disputed renewals"
      description="An open dispute blocks approval until it closes won. A lost dispute is money the studio lost: the statement stays flagged until it is held or overridden with a reason; its figures stay the service's."
      className="mb-5"
      flush
    >
      <div className="overflow-x-auto focus-visible:outline-2 focus-visible:outline-accent" tabIndex={0} role="region" aria-label="Disputes of this recipient's renewals">
        <table className="min-w-full text-sm">
          <caption className="sr-only">Disputes of this recipient&apos;s renewals</caption>
          <thead className="bg-subtle text-left text-xs text-ink-muted">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">Dispute</th>
              <th scope="col" className="px-3 py-2 font-medium">Period</th>
              <th scope="col" className="px-3 py-2 font-medium">Status</th>
              <th scope="col" className="px-3 py-2 text-right font-medium">Disputed (USD)</th>
              <th scope="col" className="px-3 py-2 text-right font-medium">Attributed on it (USD)</th>
              <th scope="col" className="px-3 py-2 font-medium">Opened / closed</th>
              <th scope="col" className="px-3 py-2 font-medium">Override</th>
            </tr>
          </thead>
          <tbody>
            {disputes.map((d) => {
              const status = STATUS[d.status];
              const override = overrides.find(
                (o) => o.flag === "disputed_renewal" && o.recipientPlayerId === d.recipientPlayerId && o.cause === `dispute:${d.disputeId}:${d.status}`,
              );
              return (
                <tr key={d.disputeId} className="border-t border-line">
                  <th scope="row" className="px-3 py-1.5 text-left font-mono text-xs font-normal">
                    {d.disputeId}
                    {d.reason ? <span className="block font-sans text-ink-muted">{d.reason}</span> : null}
                  </th>
                  <td className="px-3 py-1.5">
                    <TextLink href={`/subscriptions/periods/${d.periodId}`}>{d.periodId}</TextLink>
                    <span className="block font-mono text-xs text-ink-muted">order {d.orderId}</span>
                  </td>
                  <td className="px-3 py-1.5">
                    <Badge tone={status.tone}>{status.label}</Badge>
                  </td>
                  <td className="px-3 py-1.5 text-right">
                    {d.usdAmount !== null ? (
                      <Money value={d.usdAmount} className={d.status === "lost" ? "font-semibold text-danger-ink" : undefined} />
                    ) : (
                      <span className="text-ink-muted">not reported yet</span>
                    )}
                  </td>
                  <td className="px-3 py-1.5 text-right">{d.attributedAmountUsd !== null ? <Money value={d.attributedAmountUsd} /> : null}</td>
                  <td className="px-3 py-1.5 text-xs">
                    {d.openedAt ? <DateTime value={d.openedAt.toISOString()} focusable={false} /> : "—"}
                    {d.closedAt ? (
                      <span className="block">
                        <DateTime value={d.closedAt.toISOString()} focusable={false} />
                      </span>
                    ) : null}
                  </td>
                  <td className="px-3 py-1.5 text-xs">
                    {d.status === "won"
                      ? "Not needed"
                      : override
                        ? `By ${override.actorEmail}: “${override.reason}”`
                        : hasBatch
                          ? "Blocks approval"
                          : "Blocks approval once the batch is prepared"}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
