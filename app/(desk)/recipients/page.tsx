import type { Metadata } from "next";
import { z } from "zod";
import { PagerLinks } from "@/app/_components/table/pager";
import { countOf } from "@/lib/format";
import { Card } from "@/app/_components/ui/card";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { LinkButton } from "@/app/_components/ui/link-button";
import { hasRole } from "@/lib/auth/roles";
import { TextLink } from "@/app/_components/ui/text-link";
import { searchRecipients } from "@/db/queries/payouts";
import { NoGame } from "../no-game";
import { loadDeskPage, type SearchParamsProps } from "../page-context";
import { PayoutsHeader } from "@/app/_components/payouts/payouts-nav";
import { withoutControls } from "@/lib/table-state";

const DESCRIPTION =
  "Everyone who earned a revenue share in a snapshotted window: open one for the ledger across months.";

export const metadata: Metadata = { title: "Recipients" };

const PAGE = 100;
const playerId = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number)
  .optional()
  .catch(undefined);
/** The page's address: what was searched, and the player id the page starts after or ends before. */
const recipientQuery = z.object({
  q: z
    .string()
    .catch("")
    .transform((q) => withoutControls(q).slice(0, 200)),
  after: playerId,
  before: playerId,
});

export default async function RecipientsPage({ searchParams }: SearchParamsProps) {
  const { user, db, game } = await loadDeskPage("viewer");
  const { q, after, before } = recipientQuery.parse(await searchParams);
  const header = (
    <PayoutsHeader
      title="Recipients"
      description={DESCRIPTION}
      current="/recipients"
      actions={
        hasRole(user.role, "finance") ? (
          <LinkButton href="/payouts/profiles">Import or export payout profiles</LinkButton>
        ) : undefined
      }
    />
  );
  if (!game) return <NoGame role={user.role} header={header} />;
  const { rows, hasPrevious, hasNext } = await searchRecipients(db, { gameId: game.id, q, after, before, limit: PAGE });
  const pageHref = (key: "after" | "before", id: number) =>
    `/recipients?${new URLSearchParams({ ...(q ? { q } : {}), [key]: String(id) })}`;
  const firstId = rows.at(0)?.recipientPlayerId;
  const lastId = rows.at(-1)?.recipientPlayerId;
  return (
    <>
      {header}
      <search aria-label="Recipients" className="mb-4">
        <form method="get" className="flex items-end gap-2">
          <div className="flex flex-col gap-1">
            <label htmlFor="recipient-q" className="text-sm font-medium text-ink">
              Name, email or player id
            </label>
            <input
              id="recipient-q"
              name="q"
              type="search"
              defaultValue={q}
              maxLength={200}
              className="h-8 w-72 rounded-md border border-line-strong bg-surface px-2.5 text-sm text-ink"
            />
          </div>
          <button
            type="submit"
            className={
              "h-8 rounded-md border border-line-strong bg-surface px-3 text-sm font-medium text-ink " +
              "hover:bg-subtle"
            }
          >
            Search
          </button>
        </form>
      </search>
      {rows.length === 0 && (after !== undefined || before !== undefined) ? (
        <EmptyState title="No recipient past this page">
          <TextLink href={q ? `/recipients?${new URLSearchParams({ q })}` : "/recipients"}>
            Back to the first page
          </TextLink>
        </EmptyState>
      ) : rows.length === 0 ? (
        <EmptyState title={q ? "No recipient matches" : "No recipients yet"}>
          {q
            ? "Check the spelling, or search by player id."
            : "Everyone a month's snapshot names is listed here once finance takes one on the Payouts page."}
        </EmptyState>
      ) : (
        <Card title={q ? `Matching “${q}”, by player id` : "Recipients by player id"} flush>
          <ul className="divide-y divide-line">
            {rows.map((r) => (
              <li key={r.recipientPlayerId} className="flex flex-wrap items-baseline gap-x-3 px-4 py-2">
                <TextLink href={`/recipients/${r.recipientPlayerId}`}>
                  {r.playerName ?? `Player ${r.recipientPlayerId}`}
                </TextLink>
                <span className="text-xs text-ink-muted">{r.playerEmail ?? "unresolved"}</span>
                <span className="font-mono text-xs text-ink-muted">#{r.recipientPlayerId}</span>
              </li>
            ))}
          </ul>
          <PagerLinks
            label="Recipient pages"
            summary={`${countOf(rows.length, "recipient")}, #${firstId} to #${lastId}`}
            previous={hasPrevious && firstId !== undefined ? pageHref("before", firstId) : null}
            next={hasNext && lastId !== undefined ? pageHref("after", lastId) : null}
          />
        </Card>
      )}
    </>
  );
}
