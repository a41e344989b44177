import { downloadHref } from "@/lib/games/download-game";
import type { Metadata } from "next";
import { CsvDownload } from "@/app/_components/forms/spreadsheet-option";
import { Input } from "@/app/_components/forms/input";
import { Button } from "@/app/_components/ui/button";
import { Card } from "@/app/_components/ui/card";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Pager } from "@/app/_components/table/pager";
import { RowTh, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { getDb } from "@/db";
import { listPaymentYears } from "@/db/queries/accounting";
import { readPayeeTotalsPage } from "@/lib/accounting/payee-totals";
import { calendarYearSchema } from "@/lib/accounting/schemas";
import { hasRole } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";
import { countOf, formatCount } from "@/lib/format";
import { resolveSelectedGame } from "@/lib/games/games";
import { pageParam } from "@/lib/table-state";
import { NoGame } from "../../no-game";
import { setPayeeThresholdAction } from "./actions";
import { ThresholdForm } from "./threshold-form";

export const metadata: Metadata = { title: "Year-end payee totals" };

/** Recipients a page shows: the whole year is in the CSV download. */
const PAGE_SIZE = 50;

function pageHref(year: number, page: number): string {
  const search = new URLSearchParams({ year: String(year) });
  if (page > 1) search.set("page", String(page));
  return `/payouts/payee-totals?${search.toString()}`;
}

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function PayeeTotalsPage({ searchParams }: Props) {
  const user = await requirePageRole("finance");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const crumbs = [{ label: "Payouts", href: "/payouts" }];
  if (!game) {
    return (
      <>
        <PageHeader title="Year-end payee totals" breadcrumbs={crumbs} />
        <NoGame role={user.role} />
      </>
    );
  }
  const query = await searchParams;
  const raw = query.year;
  const asked = calendarYearSchema.safeParse(typeof raw === "string" ? raw : "");
  const years = await listPaymentYears(db, { gameId: game.id });
  const year = asked.success ? asked.data : (years[0] ?? new Date().getUTCFullYear());
  // A year typed and refused: kept in its field, its error tied to it and said.
  const refusedYear = !asked.success && typeof raw === "string" && raw !== "";
  // A page at a time, by recipient: a year of a large program is tens of thousands of recipients, too many to draw
  // (or to read whole on every view).
  const wanted = (pageParam(query, 100_000) - 1) * PAGE_SIZE;
  const totals = await readPayeeTotalsPage(db, { gameId: game.id, year, offset: wanted, limit: PAGE_SIZE });
  const { reaching, offset } = totals;
  return (
    <>
      <PageHeader
        title={`Year-end payee totals, ${year}`}
        breadcrumbs={crumbs}
        description={
          "Per recipient, what was paid in the calendar year by payment date, net of the payments of the year that " +
          "came back (even when recorded later), beside the tax form on file and the year's reporting threshold."
        }
      />
      <div className="mb-4 flex flex-wrap items-end gap-3">
        <form method="get" action="/payouts/payee-totals" className="flex items-end gap-2" aria-label="Choose the year">
          <label htmlFor="payee-year" className="flex flex-col gap-1 text-sm font-medium text-ink">
            Year
            <Input
              id="payee-year"
              name="year"
              aria-invalid={refusedYear || undefined}
              // The page is drawn anew for a refused year: the focus goes to it, its error read with it.
              autoFocus={refusedYear}
              aria-describedby={refusedYear ? "payee-year-error" : undefined}
              defaultValue={refusedYear ? raw : String(year)}
              inputMode="numeric"
              className="w-24"
              list="payment-years"
            />
          </label>
          <datalist id="payment-years">
            {years.map((y) => (
              <option key={y} value={y} />
            ))}
          </datalist>
          <Button type="submit" size="sm">
            Show
          </Button>
        </form>
        {totals.total > 0 ? (
          <CsvDownload href={downloadHref(`/api/payee-totals?year=${year}`, game.id)}>
            Download payee totals (CSV)
          </CsvDownload>
        ) : null}
      </div>
      {refusedYear ? (
        <p id="payee-year-error" role="alert" className="mb-3 text-sm text-danger-ink">
          Year: {asked.error?.issues[0]?.message}; showing {year}.
        </p>
      ) : null}
      <p className="mb-3 text-sm text-ink-muted">
        {totals.thresholdUsd === null ? (
          <>No reporting threshold is set for {year} (an admin sets it on this page).</>
        ) : (
          <>
            Threshold <Money value={totals.thresholdUsd} currency="USD" />: {formatCount(reaching)} of{" "}
            {countOf(totals.total, "recipient")} {reaching === 1 ? "reaches" : "reach"} it.
          </>
        )}{" "}
        The tax form is the one on the recipient's payout profile; “unknown” means the recipient has no profile.
      </p>
      {totals.total === 0 ? (
        <EmptyState title={`Nobody was paid in ${year}`}>Payments count by the payment date recorded.</EmptyState>
      ) : (
        <SimpleTable
          caption={`Payee totals for ${year}`}
          footer={
            <Pager
              label="Payee totals pages"
              offset={offset}
              limit={PAGE_SIZE}
              total={totals.total}
              pageHref={(page) => pageHref(year, page)}
            />
          }
          head={
            <>
              <Th>Recipient</Th>
              <Th align="right">Payments</Th>
              <Th align="right">Paid (USD)</Th>
              <Th align="right">Returned (USD)</Th>
              <Th align="right">Net paid (USD)</Th>
              <Th>Tax form on file</Th>
              <Th>Reaches threshold</Th>
            </>
          }
        >
          {totals.rows.map((r) => (
            <Tr key={r.recipientPlayerId}>
              <RowTh>
                {r.name ?? `Player ${r.recipientPlayerId}`}
                <span className="block text-xs text-ink-muted">
                  {r.recipientPlayerId}
                  {r.email ? ` · ${r.email}` : ""}
                </span>
              </RowTh>
              <Td align="right" className="tabular-nums">
                {formatCount(r.payments)}
              </Td>
              <Td align="right">
                <Money value={r.paidUsd} />
              </Td>
              <Td align="right">
                <Money value={r.returnedUsd} />
              </Td>
              <Td align="right">
                <Money value={r.netUsd} />
              </Td>
              <Td>{r.taxFormOnFile}</Td>
              <Td>{r.reachesThreshold}</Td>
            </Tr>
          ))}
        </SimpleTable>
      )}
      {hasRole(user.role, "admin") ? (
        <Card title="Reporting threshold" className="mt-4">
          <ThresholdForm action={setPayeeThresholdAction} year={year} current={totals.thresholdUsd} />
        </Card>
      ) : null}
    </>
  );
}
