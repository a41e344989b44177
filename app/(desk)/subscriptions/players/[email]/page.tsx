import { recordTitle } from "@/app/_components/shell/record-title";
import type { Metadata } from "next";
import { Banner } from "@/app/_components/ui/banner";
import { Card } from "@/app/_components/ui/card";
import { KeyValueList } from "@/app/_components/ui/key-value";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { TextLink } from "@/app/_components/ui/text-link";
import { getDb } from "@/db";
import { hasRole } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";
import { resolveSelectedGame } from "@/lib/games/games";
import { describeNextCharge, NEXT_CHARGE } from "@/lib/lookup/cancel-outcome";
import { decodeParam, loadFromService } from "@/lib/lookup/load";
import type { Subscription } from "@/lib/service/subscription-schemas";
import { classifySearch, playerHref, subscriptionHref } from "@/lib/lookup/search";
import { anotherGameAnswered, answeredForAnotherGame } from "@/lib/service/answered-game";
import { PAGE_READ_CLIENT } from "@/lib/service/client";
import { serviceClientForGame } from "@/lib/service/for-game";
import { NoGame } from "../../../no-game";
import { SubscriptionStatusBadge, YesNo } from "../../_components/badges";
import { MaybeMoney, MaybeTime } from "../../_components/maybe";
import { ServiceList } from "../../_components/service-list";
import { EmptyRow, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";

export async function generateMetadata({ params }: Pick<Props, "params">): Promise<Metadata> {
  return recordTitle("Player", (await params).email);
}

const PAGE_SIZE = 25;
/**
 * "the word live expands to the four live statuses and may be mixed, for example live,canceled". Only the status
 * names the service documents: its dunning status has no documented name (a subscription in dunning is under Live,
 * and its status shows as the service sends it).
 */
const STATUS_OPTIONS = [
  { value: "", label: "All statuses" },
  { value: "live", label: "Live (active, dunning, awaiting)" },
  { value: "active", label: "Active" },
  { value: "awaiting_authentication", label: "Awaiting authentication" },
  { value: "pending_pcstore_authorization", label: "Pending pcstore authorization" },
  { value: "canceled", label: "Canceled" },
  { value: "expired", label: "Expired" },
  { value: "canceled,expired", label: "Canceled or expired" },
];

type Props = {
  params: Promise<{ email: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export default async function PlayerPage({ params, searchParams }: Props) {
  const user = await requirePageRole("viewer");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const raw = decodeParam((await params).email);
  const query = await searchParams;
  const target = classifySearch(raw);
  const header = (description?: string) => (
    <PageHeader
      title={raw}
      description={description}
      breadcrumbs={[{ label: "Subscriptions", href: "/subscriptions" }, { label: "Players" }]}
    />
  );
  if (!game)
    return (
      <>
        {header()}
        <NoGame role={user.role} />
      </>
    );
  if (target.kind !== "player")
    return (
      <>
        {header()}
        <Banner tone="danger" role="alert">{`"${raw}" is not a player email.`}</Banner>
      </>
    );

  const email = target.email;
  const status = STATUS_OPTIONS.some((o) => o.value === query.status) ? String(query.status ?? "") : "";
  const offset = Math.min(Math.max(Number.parseInt(String(query.offset ?? "0"), 10) || 0, 0), 100_000);
  const client = await serviceClientForGame(db, game.id, PAGE_READ_CLIENT);
  const showsCards = hasRole(user.role, "support");
  const [balance, cards, subscriptions] = await Promise.all([
    loadFromService("player", () => client.getPlayerBalanceByEmail(email)),
    // A card's brand, last four digits and expiry are for those who act on a player's payments (support and above).
    showsCards ? loadFromService("saved cards", () => client.listPlayerCards(email)) : null,
    loadFromService("subscriptions", () =>
      client.listPlayerSubscriptions({
        playerEmail: email,
        status: status ? status.split(",") : undefined,
        limit: PAGE_SIZE,
        offset,
      }),
    ),
  ]);
  // Subscriptions of another game (that game's secret saved for this one): its player's balance, cards and
  // subscriptions are refused, never shown as this game's. The service names the game on each subscription only.
  const otherGame = subscriptions.ok
    ? anotherGameAnswered(
        subscriptions.value.subscriptions.map((s) => s.game_id),
        game.id,
      )
    : null;
  if (otherGame !== null)
    return (
      <>
        {header()}
        <Banner tone="danger" role="alert">{`${answeredForAnotherGame(otherGame, game.id)}.`}</Banner>
      </>
    );
  const hrefFor = (next: number) => {
    const search = new URLSearchParams();
    if (status) search.set("status", status);
    if (next > 0) search.set("offset", String(next));
    const text = search.toString();
    return `${playerHref(email)}${text ? `?${text}` : ""}`;
  };

  return (
    <>
      {header(
        balance.ok
          ? `${balance.value.player.player_name ?? "Player"} · player ${balance.value.player.player_id} in ${game.name}`
          : undefined,
      )}
      <div className="flex flex-col gap-6">
        <div className="grid gap-4 lg:grid-cols-2">
          <Card title="Balance">
            {balance.ok ? (
              <div className="flex flex-col gap-3">
                <KeyValueList
                  items={[
                    { label: "Player id", value: <span className="font-mono">{balance.value.player.player_id}</span> },
                    { label: "Name", value: balance.value.player.player_name },
                    {
                      label: "Identity id",
                      value: <span className="font-mono text-xs">{balance.value.player.identity_id ?? "—"}</span>,
                    },
                    { label: "Joined", value: <MaybeTime value={balance.value.player.date_joined} /> },
                    {
                      label: "Total value (game currency)",
                      value: <Money value={balance.value.summary.total_value} />,
                    },
                    { label: "Last updated", value: <MaybeTime value={balance.value.last_updated} /> },
                  ]}
                />
                <SimpleTable
                  nowrapHead
                  caption="Balances by currency"
                  head={
                    <>
                      <Th>Currency</Th>
                      <Th align="right">Available</Th>
                      <Th align="right">Reserved</Th>
                      <Th align="right">Total</Th>
                    </>
                  }
                >
                  {balance.value.balances.length === 0 ? (
                    <EmptyRow colSpan={4}>No balances.</EmptyRow>
                  ) : (
                    balance.value.balances.map((b) => (
                      <Tr key={b.currency_id}>
                        <Td>{b.currency_name}</Td>
                        <Td align="right">
                          <Money value={b.available_balance} />
                        </Td>
                        <Td align="right">
                          <Money value={b.reserved_balance} />
                        </Td>
                        <Td align="right">
                          <Money value={b.total_balance} />
                        </Td>
                      </Tr>
                    ))
                  )}
                </SimpleTable>
              </div>
            ) : (
              <p className="text-ink-muted">
                {balance.notFound ? "The service has never seen this player (no balance)." : balance.message}
              </p>
            )}
          </Card>
          <Card title="Saved cards" description="Newest first; expired cards are not listed by the service.">
            {cards === null ? (
              <p className="text-ink-muted">Saved cards are shown to support and above.</p>
            ) : !cards.ok ? (
              <p className="text-ink-muted">{cards.message}</p>
            ) : cards.value.cards.length === 0 ? (
              <p className="text-ink-muted">No saved cards.</p>
            ) : (
              <ul className="flex flex-col divide-y divide-line">
                {cards.value.cards.map((card) => (
                  <li key={card.id} className="flex flex-wrap items-center justify-between gap-2 py-1.5">
                    <span>
                      <span className="capitalize">{card.brand}</span> ••••{" "}
                      <span className="font-mono">{card.last_four}</span>
                    </span>
                    <span className="text-ink-muted">
                      expires {String(card.exp_month).padStart(2, "0")}/{card.exp_year} · card id{" "}
                      <span className="font-mono">{card.id}</span> · added{" "}
                      <MaybeTime value={card.created_at} focusable={false} />
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </Card>
        </div>

        <ServiceList
          headingId="player-subscriptions"
          heading="Subscriptions"
          loaded={subscriptions}
          filter={{ action: playerHref(email), value: status, options: STATUS_OPTIONS, label: "Status" }}
          caption={`Subscriptions of ${email}`}
          head={
            <>
              <Th>Subscription</Th>
              <Th>Item</Th>
              <Th>Status</Th>
              <Th align="right">Price (USD)</Th>
              <Th align="right">Staged price (USD)</Th>
              <Th>Rail</Th>
              <Th>Wallet only</Th>
              <Th>Paid through</Th>
              <Th>Next charge</Th>
              <Th>Created</Th>
            </>
          }
          pager={{ label: "Subscriptions pages", offset, limit: PAGE_SIZE, hrefFor }}
          total={(value) => value.pagination.total_count}
          rows={(value) =>
            value.subscriptions.map((s) => (
              <Tr key={s.subscription_id}>
                <Td>
                  <TextLink href={subscriptionHref(s.subscription_id)} className="font-mono text-xs">
                    {s.subscription_id}
                  </TextLink>
                </Td>
                <Td>{s.item_name}</Td>
                <Td>
                  <SubscriptionStatusBadge status={s.status} cancelAtPeriodEnd={s.cancel_at_period_end} />
                </Td>
                <Td align="right">
                  <Money value={s.amount_usd} />
                </Td>
                <Td align="right">
                  <MaybeMoney value={s.pending_amount_usd} />
                </Td>
                <Td>{s.funding_rail}</Td>
                <Td>
                  <YesNo value={s.wallet_only} />
                </Td>
                <Td>
                  <MaybeTime value={s.paid_through} focusable={false} />
                </Td>
                <Td>
                  <NextCharge subscription={s} />
                </Td>
                <Td>
                  <MaybeTime value={s.created_at} focusable={false} />
                </Td>
              </Tr>
            ))
          }
          columns={10}
          empty={{
            pastEnd: "No subscriptions on this page: it is past the last one.",
            filtered: "No subscriptions with this status.",
            none: "This player has no subscriptions in this game.",
          }}
        />
      </div>
    </>
  );
}

/** Next charge as the subscription's page says it: none once it is ending, whatever the service's next touch. */
function NextCharge({ subscription }: { subscription: Subscription }) {
  const next = describeNextCharge(subscription);
  if (next.note) return next.note;
  // Not a charge (a retry, a challenge's deadline): said so in the cell, under the column's name.
  return next.label === NEXT_CHARGE ? (
    <MaybeTime value={next.at} focusable={false} />
  ) : (
    <>
      {next.label}: <MaybeTime value={next.at} focusable={false} />
    </>
  );
}
