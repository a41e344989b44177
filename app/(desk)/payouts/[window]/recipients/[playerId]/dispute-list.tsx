import { HeadCells } from "@/app/_components/table/columns";
import { Badge } from "@/app/_components/ui/badge";
import { Card } from "@/app/_components/ui/card";
import { DateTime } from "@/app/_components/ui/date-time";
import { Money } from "@/app/_components/ui/money";
import { TextLink } from "@/app/_components/ui/text-link";
import { RowTh, SimpleTable, Td, Tr } from "@/app/_components/table/table";
import type { SnapshotDisputeRow } from "@/db/queries/disputes";
import type { FlagOverride } from "@/lib/payouts/flags";
import { windowLabel } from "@/lib/payouts/window-key";

const STATUS: Record<SnapshotDisputeRow["status"], { label: string; tone: "danger" | "success" | "warning" }> = {
  open: { label: "Open", tone: "warning" },
  won: { label: "Closed won", tone: "success" },
  lost: { label: "Closed lost", tone: "danger" },
};

/**
 * Chargebacks on this recipient's renewals in the window, and on those of an earlier window whose earnings were carried
 * into this statement, with what each means for the payout.
 */
export function DisputeList({
  disputes,
  overrides,
  hasBatch,
}: {
  disputes: SnapshotDisputeRow[];
  overrides: FlagOverride[];
  hasBatch: boolean;
}) {
  return (
    <Card
      title="Disputed renewals"
      description={
        "An open dispute blocks approval until it closes won. A lost dispute is money the studio lost: the " +
        "statement stays flagged until it is held or overridden with a reason; its figures stay the service's."
      }
      className="mb-5"
      flush
    >
      <SimpleTable
        caption="Disputes of this recipient's renewals"
        frame="none"
        dense
        head={
          <HeadCells
            columns={[
              "Dispute",
              "Period",
              "Status",
              ["Disputed (USD)", "right"],
              ["Attributed on it (USD)", "right"],
              "Opened / closed",
              "Override",
            ]}
          />
        }
      >
        {disputes.map((d) => {
          const status = STATUS[d.status];
          const override = overrides.find(
            (o) =>
              o.flag === "disputed_renewal" &&
              o.recipientPlayerId === d.recipientPlayerId &&
              o.cause === `dispute:${d.disputeId}:${d.status}`,
          );
          return (
            <Tr key={`${d.disputeId}:${d.periodId}`}>
              <RowTh className="font-mono text-xs">
                {d.disputeId}
                {d.reason ? <span className="block font-sans text-ink-muted">{d.reason}</span> : null}
              </RowTh>
              <Td>
                <TextLink href={`/subscriptions/periods/${d.periodId}`}>{d.periodId}</TextLink>
                <span className="block font-mono text-xs text-ink-muted">order {d.orderId}</span>
                {d.carriedFrom ? (
                  <span className="block text-xs text-ink-muted">
                    of {windowLabel(d.carriedFrom)}, carried into this statement
                  </span>
                ) : null}
              </Td>
              <Td>
                <Badge tone={status.tone}>{status.label}</Badge>
              </Td>
              <Td align="right">
                {d.usdAmount !== null ? (
                  <Money
                    value={d.usdAmount}
                    className={d.status === "lost" ? "font-semibold text-danger-ink" : undefined}
                  />
                ) : (
                  <span className="text-ink-muted">not reported yet</span>
                )}
              </Td>
              <Td align="right">{d.attributedAmountUsd !== null ? <Money value={d.attributedAmountUsd} /> : null}</Td>
              <Td className="text-xs">
                {d.openedAt ? <DateTime value={d.openedAt.toISOString()} focusable={false} /> : "—"}
                {d.closedAt ? (
                  <span className="block">
                    <DateTime value={d.closedAt.toISOString()} focusable={false} />
                  </span>
                ) : null}
              </Td>
              <Td className="text-xs">
                {d.status === "won"
                  ? "Not needed"
                  : override
                    ? `By ${override.actorEmail}: “${override.reason}”`
                    : hasBatch
                      ? "Blocks approval"
                      : "Blocks approval once the batch is prepared"}
              </Td>
            </Tr>
          );
        })}
      </SimpleTable>
    </Card>
  );
}
