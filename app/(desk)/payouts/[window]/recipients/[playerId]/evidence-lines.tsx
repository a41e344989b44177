import { Badge } from "@/app/_components/ui/badge";
import { DateTime } from "@/app/_components/ui/date-time";
import { LinkButton } from "@/app/_components/ui/link-button";
import { Money } from "@/app/_components/ui/money";
import { TextLink } from "@/app/_components/ui/text-link";
import { HeadCells, MoneyTd } from "@/app/_components/table/columns";
import { RowTh, SimpleTable, Td, Tr } from "@/app/_components/table/table";
import type { listEvidenceLines } from "@/db/queries/payouts";
import { formatCount } from "@/lib/format";
import { UNATTRIBUTED_REASON_INFO } from "@/lib/payouts/flag-info";

/**
 * The renewal lines that earned the recipient a share in the window, as the snapshot froze them, a page at a time;
 * reconciliation mismatches and unattributed reasons are marked on the line.
 */
export function EvidenceLines({
  lines,
  linesHref,
  mismatchesOnly,
  page,
  pages,
  linkFor,
}: {
  lines: Awaited<ReturnType<typeof listEvidenceLines>>;
  /** The recipient's evidence page, all lines. */
  linesHref: string;
  mismatchesOnly: boolean;
  page: number;
  pages: number;
  linkFor: (extra: Record<string, string>) => string;
}) {
  return (
    <section aria-labelledby="lines-heading">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h2 id="lines-heading" className="text-sm font-semibold text-ink">
          Renewal lines (
          {mismatchesOnly
            ? `${formatCount(lines.mismatches)} of ${formatCount(lines.total)}: reconciliation mismatches`
            : formatCount(lines.total)}
          )
        </h2>
        <div className="flex gap-2 text-sm">
          {mismatchesOnly ? (
            <LinkButton size="sm" href={linesHref}>
              Show all lines
            </LinkButton>
          ) : lines.mismatches > 0 ? (
            <LinkButton size="sm" href={`${linesHref}?lines=mismatches`}>
              Only reconciliation mismatches
            </LinkButton>
          ) : null}
        </div>
      </div>
      {page > pages && pages > 0 ? (
        <p className="mb-2 text-sm text-ink-muted">
          No lines on page {formatCount(page)}: the lines fill {formatCount(pages)}.{" "}
          <TextLink href={linkFor({ page: "1" })}>Go to the first page</TextLink>
        </p>
      ) : null}
      <SimpleTable
        caption="Renewal lines attributed to this recipient in the window"
        dense
        head={
          <HeadCells
            columns={[
              "Period",
              "Subscription",
              "Item",
              "Paid at",
              ["Amount (USD)", "right"],
              ["Base (USD)", "right"],
              ["Percent", "right"],
              ["Attributed (USD)", "right"],
              "Checks",
            ]}
          />
        }
      >
        {lines.rows.map((l) => {
          const mismatch = l.reconciliation?.base_matches_settled_fee === false;
          return (
            <Tr key={l.periodId}>
              <RowTh>
                <TextLink href={`/subscriptions/periods/${l.periodId}`}>{l.periodId}</TextLink>
                <span className="ml-1 text-xs text-ink-muted">seq {l.periodSeq}</span>
              </RowTh>
              <Td>
                <TextLink href={`/subscriptions/${encodeURIComponent(l.subscriptionId)}`} className="font-mono text-xs">
                  {l.subscriptionId}
                </TextLink>
              </Td>
              <Td>{l.itemName}</Td>
              <Td>{l.paidAt ? <DateTime value={l.paidAt.toISOString()} focusable={false} /> : null}</Td>
              <MoneyTd value={l.amountUsd} />
              <Td align="right">{l.baseUsd ? <Money value={l.baseUsd} /> : null}</Td>
              <Td align="right" className="tabular-nums">
                {l.percentAtRenewal ? `${l.percentAtRenewal}%` : null}
              </Td>
              <Td align="right">
                {l.attributedAmountUsd ? <Money value={l.attributedAmountUsd} className="font-medium" /> : null}
              </Td>
              <Td>
                {mismatch ? (
                  <Badge
                    tone="warning"
                    focusable={false}
                    title={
                      `Expected base ${l.reconciliation?.expected_base_usd}, recorded ` +
                      `${l.reconciliation?.recorded_base_usd}`
                    }
                  >
                    Base mismatch: expected {l.reconciliation?.expected_base_usd}
                  </Badge>
                ) : null}
                {l.attributionUnavailableReason ? (
                  <Badge tone="danger" title={`Service code: ${l.attributionUnavailableReason}`} focusable={false}>
                    {UNATTRIBUTED_REASON_INFO[l.attributionUnavailableReason]?.label ?? l.attributionUnavailableReason}
                  </Badge>
                ) : null}
              </Td>
            </Tr>
          );
        })}
      </SimpleTable>
      {pages > 1 ? (
        <nav aria-label="Renewal line pages" className="mt-2 flex items-center gap-2 text-sm text-ink-muted">
          {page > 1 ? (
            <LinkButton size="sm" href={linkFor({ page: String(page - 1) })}>
              ‹ Previous
            </LinkButton>
          ) : null}
          <span>
            Page {formatCount(page)} of {formatCount(pages)}
          </span>
          {page < pages ? (
            <LinkButton size="sm" href={linkFor({ page: String(page + 1) })}>
              Next ›
            </LinkButton>
          ) : null}
        </nav>
      ) : null}
    </section>
  );
}
