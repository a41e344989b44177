import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { Card } from "@/app/_components/ui/card";
import { PageHeader } from "@/app/_components/ui/page-header";
import { countRefundAttempts, listRefundAttempts } from "@/db/queries/refunds";
import type { RefundAttemptStatus } from "@/db/tables/refunds";
import { formatCount } from "@/lib/format";
import { classifySearch } from "@/lib/lookup/search";
import { NoGame } from "../no-game";
import { loadDeskPage, type SearchParamsProps } from "../page-context";
import { AttemptsTable } from "./_components/attempts-table";
import { SearchForm } from "./_components/search-form";

/** Unfinished refunds listed at most, the longest waiting first: a work list that shows the rest as it shrinks. */
const OPEN_SHOWN = 50;

export async function generateMetadata({ searchParams }: SearchParamsProps): Promise<Metadata> {
  const q = (await searchParams).q;
  const invalid = typeof q === "string" && classifySearch(q).kind === "invalid";
  return { title: invalid ? "Lookup not understood · Subscriptions" : "Subscriptions" };
}

export default async function SubscriptionsPage({ searchParams }: SearchParamsProps) {
  const { user, db, game } = await loadDeskPage("viewer");
  const params = await searchParams;
  const q = typeof params.q === "string" ? params.q : undefined;
  const target = q === undefined ? null : classifySearch(q);
  if (target && target.kind !== "invalid") redirect(target.href);

  if (!game) {
    return (
      <>
        <PageHeader title="Subscriptions" description="Look up a subscription, a player or a billing period." />
        <NoGame role={user.role} />
      </>
    );
  }
  const unfinished: RefundAttemptStatus[] = ["pending", "needs_attention"];
  const [open, recent] = await Promise.all([
    listRefundAttempts(db, { gameId: game.id, statuses: unfinished, limit: OPEN_SHOWN, oldestFirst: true }),
    listRefundAttempts(db, { gameId: game.id, limit: 10 }),
  ]);
  // Counted only when the list is full: fewer than it holds are all of them.
  const openCount =
    open.length < OPEN_SHOWN ? open.length : await countRefundAttempts(db, { gameId: game.id, statuses: unfinished });
  return (
    <>
      <PageHeader
        title="Subscriptions"
        description={`Look up a subscription, a player or a billing period of ${game.name}.`}
      />
      <div className="flex flex-col gap-6">
        <Card>
          <SearchForm defaultValue={q} error={target?.kind === "invalid" ? target.message : null} />
        </Card>
        {open.length > 0 ? (
          <section aria-labelledby="open-refunds" className="flex flex-col gap-2">
            <h2 id="open-refunds" className="text-sm font-semibold text-ink">
              Refunds not finished ({formatCount(openCount)})
            </h2>
            <p className="text-ink-muted">
              Pending refunds are retried automatically with their own request id; those needing manual attention wait
              for a finance user to settle them with the service.
              {openCount > open.length
                ? ` The ${formatCount(open.length)} waiting longest are listed; each one settled lets another in.`
                : null}
            </p>
            <AttemptsTable caption="Refunds not finished" attempts={open} />
          </section>
        ) : null}
        <section aria-labelledby="recent-refunds" className="flex flex-col gap-2">
          <h2 id="recent-refunds" className="text-sm font-semibold text-ink">
            Latest refunds from Payout Desk
          </h2>
          <AttemptsTable caption="Latest refunds" attempts={recent} />
        </section>
      </div>
    </>
  );
}
