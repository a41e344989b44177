import { BATCH_BADGE } from "@/app/_components/payouts/batch-badge";
import { Badge } from "@/app/_components/ui/badge";
import { DateTime } from "@/app/_components/ui/date-time";
import { KeyValueList } from "@/app/_components/ui/key-value";
import { Money } from "@/app/_components/ui/money";
import type { PayoutBatchSummary } from "@/lib/payouts/ledger";
import { Panel } from "./panel";

/**
 * Who prepared and approved the window's batch, when, and under which rule; with no batch, the minimum payout it
 * would be prepared with.
 */
export function BatchDetails({
  batch,
  twoPersonRule,
  minPayoutUsd,
}: {
  batch: PayoutBatchSummary | null;
  /** The rule the batch is approved under (lib/payouts/offered-actions.ts BatchContext). */
  twoPersonRule: boolean;
  minPayoutUsd: string;
}) {
  const badge = batch ? BATCH_BADGE[batch.status] : null;
  return (
    <Panel
      id="batch-details"
      title="Batch details"
      summary={batch ? `Built on snapshot version ${batch.snapshotVersion}` : "Not prepared"}
    >
      {batch ? (
        <KeyValueList
          items={[
            { label: "Status", value: badge ? <Badge tone={badge.tone}>{badge.label}</Badge> : batch.status },
            { label: "Built on", value: `Snapshot version ${batch.snapshotVersion}` },
            {
              label: "Prepared",
              value: (
                <>
                  {batch.preparedByEmail}, <DateTime value={batch.preparedAt} />
                </>
              ),
            },
            {
              label: "Approved",
              value: batch.approvedAt ? (
                <>
                  {batch.approvedByEmail}, <DateTime value={batch.approvedAt} />
                </>
              ) : (
                "Not yet"
              ),
            },
            { label: "Paid", value: batch.paidAt ? <DateTime value={batch.paidAt} /> : null },
            { label: "Minimum payout", value: <Money value={batch.minPayoutUsd} currency="USD" /> },
            { label: "Two-person rule", value: twoPersonRule ? "On: the approver must not be the preparer" : "Off" },
          ]}
        />
      ) : (
        <p className="text-ink-muted">
          No batch yet. Payables under <Money value={minPayoutUsd} currency="USD" /> roll to the next statement.
        </p>
      )}
    </Panel>
  );
}
