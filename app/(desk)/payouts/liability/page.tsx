import type { Metadata } from "next";
import { Card } from "@/app/_components/ui/card";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Stat, StatGroup } from "@/app/_components/ui/stat";
import { TextLink } from "@/app/_components/ui/text-link";
import { getDb } from "@/db";
import { listLiability } from "@/db/queries/payouts";
import { requirePageRole } from "@/lib/auth/session";
import { formatCount } from "@/lib/format";
import { resolveSelectedGame } from "@/lib/games/games";
import { formatUsd, sumMoney } from "@/lib/money";
import { formatInstant, parseInstant } from "@/lib/time";
import { NoGame } from "../../no-game";
import { PayoutsNav } from "../payouts-nav";

export const metadata: Metadata = { title: "Liability" };

const MAX_ROWS = 500;

/** "As of date D, what do we owe each recipient": approved but unpaid, held, carried, not yet reviewed. */
export default async function LiabilityPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await requirePageRole("viewer");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const query = await searchParams;
  const today = formatInstant(Date.now()).slice(0, 10);
  const typed = typeof query.asOf === "string" ? query.asOf : today;
  const dayMs = /^\d{4}-\d{2}-\d{2}$/.test(typed) ? parseInstant(typed) : null;
  const asOfDay = dayMs === null ? today : typed;
  // As of the end of day D (UTC): everything recorded on D counts.
  const asOf = new Date((parseInstant(asOfDay) ?? Date.now()) + 86_400_000);
  const header = (
    <>
      <PageHeader title="Liability" description="What this game owes each recipient as of the end of a day (UTC), from the payout records as they stood then." />
      <PayoutsNav current="/payouts/liability" />
    </>
  );
  if (!game) return <>{header}<NoGame role={user.role} /></>;
  const rows = await listLiability(db, { gameId: game.id, asOf });
  const total = (key: keyof (typeof rows)[number]) => formatUsd(sumMoney(rows.map((r) => r[key] as string)));

  return (
    <>
      {header}
      <form method="get" className="mb-4 flex items-end gap-2" aria-label="Liability date">
        <div className="flex flex-col gap-1">
          <label htmlFor="as-of" className="text-sm font-medium text-ink">
            As of (end of day, UTC)
          </label>
          <input id="as-of" name="asOf" type="date" defaultValue={asOfDay} max={today} className="h-8 rounded-md border border-line-strong bg-surface px-2 text-sm text-ink" />
        </div>
        <button type="submit" className="h-8 rounded-md border border-line-strong bg-surface px-3 text-sm font-medium text-ink hover:bg-subtle">
          Show
        </button>
        {dayMs === null && typeof query.asOf === "string" ? <p role="alert" className="text-sm text-danger">asOf: must be a date such as 2026-04-30; showing today.</p> : null}
      </form>
      <StatGroup label="Totals" className="mb-4">
        <Stat label="Total owed" value={<Money value={total("totalOwedUsd")} currency="USD" />} hint={`${formatCount(rows.length)} recipients`} />
        <Stat label="Approved, not yet paid" value={<Money value={total("approvedUnpaidUsd")} currency="USD" />} />
        <Stat label="Held" value={<Money value={total("heldUsd")} currency="USD" />} />
        <Stat label="Rolled over (under the minimum)" value={<Money value={total("rolledOverUsd")} currency="USD" />} />
        <Stat label="Carried negative" value={<Money value={total("carriedNegativeUsd")} currency="USD" />} hint="Offsets later payouts" />
        <Stat label="Not yet reviewed" value={<Money value={total("notYetReviewedUsd")} currency="USD" />} hint="Snapshotted windows without an approved batch; overlapping windows counted once" />
      </StatGroup>
      {rows.length === 0 ? (
        <EmptyState title="Nothing owed">No recipient had a balance as of {asOfDay}.</EmptyState>
      ) : (
        <Card title={`Per recipient, largest first${rows.length > MAX_ROWS ? ` (first ${MAX_ROWS} of ${formatCount(rows.length)})` : ""}`} flush>
          <div className="overflow-x-auto">
            <table className="min-w-full text-sm">
              <caption className="sr-only">Liability per recipient as of {asOfDay}</caption>
              <thead className="bg-subtle text-left text-xs text-ink-muted">
                <tr>
                  <th scope="col" className="px-3 py-2 font-medium">Recipient</th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">Approved unpaid</th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">Held</th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">Rolled over</th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">Carried negative</th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">Not yet reviewed</th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">Total owed (USD)</th>
                </tr>
              </thead>
              <tbody>
                {rows.slice(0, MAX_ROWS).map((r) => (
                  <tr key={r.recipientPlayerId} className="border-t border-line">
                    <th scope="row" className="px-3 py-1.5 text-left font-normal">
                      <TextLink href={`/recipients/${r.recipientPlayerId}`}>{r.playerName ?? `Player ${r.recipientPlayerId}`}</TextLink>
                      <span className="block text-xs text-ink-muted">#{r.recipientPlayerId} {r.playerEmail ?? ""}</span>
                    </th>
                    <td className="px-3 py-1.5 text-right"><Money value={r.approvedUnpaidUsd} /></td>
                    <td className="px-3 py-1.5 text-right"><Money value={r.heldUsd} /></td>
                    <td className="px-3 py-1.5 text-right"><Money value={r.rolledOverUsd} /></td>
                    <td className="px-3 py-1.5 text-right"><Money value={r.carriedNegativeUsd} /></td>
                    <td className="px-3 py-1.5 text-right"><Money value={r.notYetReviewedUsd} /></td>
                    <td className="px-3 py-1.5 text-right font-semibold"><Money value={r.totalOwedUsd} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Card>
      )}
    </>
  );
}
