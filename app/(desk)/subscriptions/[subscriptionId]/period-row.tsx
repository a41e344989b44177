import { Money } from "@/app/_components/ui/money";
import { TextLink } from "@/app/_components/ui/text-link";
import { Td, Tr } from "@/app/_components/table/table";
import { money } from "@/lib/money";
import { periodHref } from "@/lib/lookup/search";
import { cardRecordMissing, pcstoreCharged, walletCoveredPeriod } from "@/lib/refunds/impact";
import type { SubscriptionAttribution } from "@/lib/service/schemas";
import { PeriodStatusBadge } from "../_components/badges";
import { MaybeMoney, MaybeTime } from "../_components/maybe";

type Period = SubscriptionAttribution["periods"][number];

/** One billing period of the subscription's list; `canRefund`: the person may refund (support or above). */
export function PeriodRow({ period: p, canRefund }: { period: Period; canRefund: boolean }) {
  const refunded = p.refund?.refunded_amount_usd ?? null;
  const partly = refunded !== null && money(refunded).gt(0) && p.status !== "refunded";
  const refundable = p.paid_at !== null && p.status !== "refunded" && !pcstoreCharged(p) && !cardRecordMissing(p);
  const walletCovered = walletCoveredPeriod(p);
  return (
    <Tr>
      <Td>{p.period_seq}</Td>
      <Td>
        <TextLink href={periodHref(p.period_id)} className="font-mono">
          {p.period_id}
        </TextLink>
      </Td>
      <Td>
        <PeriodStatusBadge status={p.status} partlyRefunded={partly} />
      </Td>
      <Td className="whitespace-nowrap">
        <MaybeTime value={p.period_start} focusable={false} /> → <MaybeTime value={p.period_end} focusable={false} />
      </Td>
      <Td>
        <MaybeTime value={p.paid_at} focusable={false} />
      </Td>
      <Td align="right">
        <Money value={p.amount_usd} />
      </Td>
      <Td align="right">
        <MaybeMoney value={refunded} />
      </Td>
      <Td align="right">
        <MaybeMoney value={p.partner_revenue_usd} />
      </Td>
      <Td align="right">
        {p.attribution ? (
          <Money value={p.attribution.attributed_amount_usd} />
        ) : (
          <span className="text-xs text-ink-muted">
            {p.attribution_unavailable_reason?.replaceAll("_", " ") ?? "—"}
          </span>
        )}
      </Td>
      <Td>{p.funding ? `${p.funding.rail}${walletCovered ? ", wallet" : ""}` : "—"}</Td>
      <Td>
        {refundable && canRefund ? (
          <TextLink href={`${periodHref(p.period_id)}#refund`} aria-label={`Refund period ${p.period_seq}`}>
            Refund…
          </TextLink>
        ) : (
          <span className="text-xs text-ink-muted">
            {p.funding?.rail === "pcstore" && pcstoreCharged(p) ? "pcstore" : ""}
          </span>
        )}
      </Td>
    </Tr>
  );
}
