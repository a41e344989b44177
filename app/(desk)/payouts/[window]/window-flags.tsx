import { Banner } from "@/app/_components/ui/banner";
import { DateTime } from "@/app/_components/ui/date-time";
import { OverrideFlagButton } from "@/app/_components/payouts/override-flag-button";
import type { PayoutBatchSummary } from "@/lib/payouts/ledger";
import { formatCount } from "@/lib/format";
import { FLAG_INFO } from "@/lib/payouts/flag-info";
import { type ActiveFlag, type FlagOverride, overrideOf } from "@/lib/payouts/flags";
import { overrideFlagAction } from "../batch-actions";

/**
 * The flags raised on the whole window: each blocks approval until it is overridden (with a reason); on an approved
 * batch they are still overridden here, on a paid one only listed.
 */
export function WindowFlags({
  windowFlags,
  openCount,
  overrides,
  batch,
  canOverride,
}: {
  windowFlags: ActiveFlag[];
  openCount: number;
  overrides: FlagOverride[];
  batch: PayoutBatchSummary | null;
  canOverride: boolean;
}) {
  if (windowFlags.length === 0) return null;
  return (
    <section aria-labelledby="window-flags-heading" className="mb-4">
      <Banner
        tone={openCount > 0 ? "danger" : "neutral"}
        title={
          <span id="window-flags-heading">
            {openCount === 0
              ? "Flags on this window (all overridden)"
              : batch?.status === "paid" || batch?.status === "approved"
                ? `${formatCount(openCount)} open flag${openCount === 1 ? "" : "s"} on this window`
                : `${formatCount(openCount)} ` +
                  `flag${openCount === 1 ? " on this window blocks" : "s on this window block"} approval`}
          </span>
        }
      >
        {openCount > 0 && batch?.status === "paid" ? (
          <p className="mt-1 text-sm">
            The batch is paid: nothing is left to approve, and a paid batch's flags are not overridden; they stay here
            as a record.
          </p>
        ) : null}
        <ul className="mt-1 flex flex-col gap-1.5">
          {windowFlags.map((flag) => {
            const override = overrideOf(flag, overrides);
            return (
              <li
                key={`${flag.flag}:${flag.cause}`}
                className="flex flex-wrap items-start justify-between gap-x-4 gap-y-1"
              >
                <div className="min-w-0 flex-1">
                  <span className="font-medium">
                    {flag.label}
                    {override ? " (overridden)" : ""}
                  </span>
                  : {FLAG_INFO[flag.flag].meaning} <span className="text-xs">({flag.detail})</span>
                  {override ? (
                    <span className="block text-xs">
                      Overridden by {override.actorEmail} on <DateTime value={override.at.toISOString()} />: “
                      {override.reason}”
                    </span>
                  ) : batch && overrides.some((o) => o.recipientPlayerId === null && o.flag === flag.flag) ? (
                    <span className="block text-xs">
                      An earlier cause of this flag was overridden; this one is new and blocks again.
                    </span>
                  ) : !batch ? (
                    <span className="block text-xs">Prepare the batch to review and override flags.</span>
                  ) : null}
                </div>
                {canOverride && batch && !override ? (
                  <OverrideFlagButton
                    action={overrideFlagAction}
                    batchId={batch.id}
                    gameId={batch.gameId}
                    flag={flag}
                  />
                ) : null}
              </li>
            );
          })}
        </ul>
      </Banner>
    </section>
  );
}
