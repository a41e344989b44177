import type { Metadata } from "next";
import { Banner } from "@/app/_components/ui/banner";
import { Card } from "@/app/_components/ui/card";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Money } from "@/app/_components/ui/money";
import { Stat, StatGroup } from "@/app/_components/ui/stat";
import { TextLink } from "@/app/_components/ui/text-link";
import { countOf, formatAmountText } from "@/lib/format";
import { formatUsd, sumMoney } from "@/lib/money";
import { type LiabilityRow, type LiabilityWindow, listLiability, uncountedMonths } from "@/lib/payouts/liability";
import { formatInstant, parseInstant } from "@/lib/time";
import { windowLabel as nameOfWindow } from "@/lib/payouts/window-key";
import { NoGame } from "../../no-game";
import { loadDeskPage, type SearchParamsProps } from "../../page-context";
import { PayoutsHeader } from "@/app/_components/payouts/payouts-nav";
import { Pager } from "@/app/_components/table/pager";
import { RowTh, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { LIABILITY_PAGE_SIZE, liabilityHref, parseLiabilityQuery } from "./query";

const DESCRIPTION = "What this game owed each recipient at the end of a day (UTC): earned and not yet paid.";

export const metadata: Metadata = { title: "Liability" };

const COLUMNS: { key: keyof LiabilityRow; label: string }[] = [
  { key: "notInBatchUsd", label: "Not yet in a batch" },
  { key: "draftUsd", label: "In a draft batch" },
  { key: "approvedUnpaidUsd", label: "Approved, not paid" },
  { key: "heldUsd", label: "Held" },
  { key: "carriedUsd", label: "Carried" },
];

function windowLabel(w: LiabilityWindow): string {
  const name = nameOfWindow(w.window);
  const read = w.readBeforeEnd ? "; read before the window ended" : "";
  if (w.source === "batch") return `${name} (in a batch${read})`;
  return `${name} (snapshot version ${w.snapshotVersion}, not yet in a batch${read})`;
}

/** "As of the end of day D, what do we owe each recipient", on an accrual basis. */
export default async function LiabilityPage({ searchParams }: SearchParamsProps) {
  const { user, db, game } = await loadDeskPage("viewer");
  const query = parseLiabilityQuery(await searchParams);
  const today = formatInstant(Date.now()).slice(0, 10);
  const asOfDay = query.asOf ?? today;
  // As of the end of day D (UTC): everything recorded on D counts, and a window ending at midnight after D has ended.
  const asOf = new Date((parseInstant(asOfDay) ?? Date.now()) + 86_400_000);
  const header = <PayoutsHeader title="Liability" description={DESCRIPTION} current="/payouts/liability" />;
  if (!game) return <NoGame role={user.role} header={header} />;
  const { rows, windows } = await listLiability(db, { gameId: game.id, asOf });
  const total = (key: keyof LiabilityRow) => formatUsd(sumMoney(rows.map((r) => r[key] as string)));
  const missing = uncountedMonths(windows, asOf);
  const early = windows.filter((w) => w.readBeforeEnd);
  // Largest first, a page at a time: every recipient is reachable, and a page stays quick to read and to render.
  const pages = Math.max(1, Math.ceil(rows.length / LIABILITY_PAGE_SIZE));
  const offset = (Math.min(query.page, pages) - 1) * LIABILITY_PAGE_SIZE;

  return (
    <>
      {header}
      <form method="get" className="mb-4 flex items-end gap-2" aria-label="Liability date">
        <div className="flex flex-col gap-1">
          <label htmlFor="as-of" className="text-sm font-medium text-ink">
            As of (end of day, UTC)
          </label>
          <input
            id="as-of"
            name="asOf"
            type="date"
            defaultValue={asOfDay}
            max={today}
            aria-invalid={query.asOf === null || undefined}
            aria-describedby={query.asOf === null ? "as-of-error" : undefined}
            className="h-8 rounded-md border border-line-strong bg-surface px-2 text-sm text-ink"
          />
        </div>
        <button
          type="submit"
          className={
            "h-8 rounded-md border border-line-strong bg-surface px-3 text-sm font-medium text-ink " + "hover:bg-subtle"
          }
        >
          Show
        </button>
        {query.asOf === null ? (
          <p id="as-of-error" role="alert" className="text-sm text-danger">
            As of must be a date such as 2026-04-30; showing today.
          </p>
        ) : null}
      </form>
      <section aria-labelledby="basis" className="mb-4 rounded-lg border border-line bg-surface px-4 py-3 text-sm">
        <h2 id="basis" className="font-semibold text-ink">
          Basis: accrual
        </h2>
        <p className="mt-1 text-ink-muted">
          Owed means earned by the end of {asOfDay} and not paid by then: the net revenue share of every window that had
          ended by then (a month counts from the day after it closes), whether or not a batch had been prepared, plus
          balances carried between statements. A window not yet in a batch counts its latest snapshot as its statement
          would take it (a reversal reported again after another window's batch deducted part of it is not deducted
          twice); a window in a batch counts the figures the batch was prepared from, in the state each statement was in
          that day. A payment counts from the day the money left, as in the ledger files, even when its results were
          imported later.
        </p>
        <p className="mt-1 text-ink-muted">
          Counted:{" "}
          {windows.length === 0
            ? "no window (nothing had ended by then with a snapshot)"
            : windows.map(windowLabel).join("; ")}
          .
        </p>
      </section>
      {early.length > 0 ? (
        <Banner tone="warning" title="Understated: a snapshot read before its window ended" className="mb-4">
          The figures counted for {early.map((w) => nameOfWindow(w.window)).join(", ")} were read before the window
          ended (a snapshot taken early, or a batch prepared early), so what was earned after that read is not in them.
          For a window not yet in a batch, finance takes its snapshot again on the{" "}
          <TextLink href="/payouts">Payouts</TextLink> page; a batch prepared early pays none of it (its window&apos;s
          flag says so).
        </Banner>
      ) : null}
      {missing.length > 0 ? (
        <Banner
          tone="warning"
          title={`Not counted: ${missing.length === 1 ? "a month" : `${missing.length} months`} with no snapshot`}
          className="mb-4"
        >
          {missing.join(", ")} had ended by then but have no snapshot, so what was earned in them is not in these
          figures. Finance takes a snapshot of each on the <TextLink href="/payouts">Payouts</TextLink> page.
        </Banner>
      ) : null}
      <StatGroup label="Totals" className="mb-4">
        <Stat
          label="Total owed"
          value={<Money value={total("totalOwedUsd")} currency="USD" />}
          hint={countOf(rows.length, "recipient")}
        />
        <Stat
          label="Not yet in a batch"
          value={<Money value={total("notInBatchUsd")} currency="USD" />}
          hint="Earned in windows without a payout batch"
        />
        <Stat label="In a draft batch" value={<Money value={total("draftUsd")} currency="USD" />} />
        <Stat label="Approved, not yet paid" value={<Money value={total("approvedUnpaidUsd")} currency="USD" />} />
        <Stat label="Held" value={<Money value={total("heldUsd")} currency="USD" />} />
        <Stat
          label="Carried"
          value={<Money value={total("carriedUsd")} currency="USD" />}
          hint={
            `${formatAmountText(total("rolledOverUsd"))} owed in a later statement (under the minimum, or held and ` +
            "carried forward whole), " +
            `${formatAmountText(total("carriedNegativeUsd"))} negative (offsets later payouts)`
          }
        />
      </StatGroup>
      {rows.length === 0 ? (
        windows.length === 0 ? (
          <EmptyState title="Nothing to count yet">No window that had ended by {asOfDay} has a snapshot.</EmptyState>
        ) : (
          <EmptyState title="Nothing owed">
            No recipient had earned anything unpaid by the end of {asOfDay} in the windows counted above.
          </EmptyState>
        )
      ) : (
        <Card title="Per recipient, largest first" flush>
          <SimpleTable
            caption={`Liability per recipient as of the end of ${asOfDay}, in USD`}
            frame="none"
            dense
            footer={
              <Pager
                label="Liability pages"
                offset={offset}
                limit={LIABILITY_PAGE_SIZE}
                total={rows.length}
                pageHref={(page) => liabilityHref(asOfDay, page)}
              />
            }
            head={
              <>
                <Th>Recipient</Th>
                {COLUMNS.map((c) => (
                  <Th key={c.key} align="right">
                    {c.label}
                  </Th>
                ))}
                <Th align="right">Total owed (USD)</Th>
              </>
            }
          >
            {rows.slice(offset, offset + LIABILITY_PAGE_SIZE).map((r) => (
              <Tr key={r.recipientPlayerId}>
                <RowTh>
                  <TextLink href={`/recipients/${r.recipientPlayerId}`}>
                    {r.playerName ?? `Player ${r.recipientPlayerId}`}
                  </TextLink>
                  <span className="block text-xs text-ink-muted">
                    #{r.recipientPlayerId} {r.playerEmail ?? ""}
                  </span>
                </RowTh>
                {COLUMNS.map((c) => (
                  <Td key={c.key} align="right">
                    <Money value={r[c.key] as string} />
                  </Td>
                ))}
                <Td align="right" className="font-semibold">
                  <Money value={r.totalOwedUsd} />
                </Td>
              </Tr>
            ))}
          </SimpleTable>
        </Card>
      )}
    </>
  );
}
