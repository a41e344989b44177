import { formatUsd, money, Money } from "@/lib/money";
import { addInterval, DAY, formatInstant, HOUR, MINUTE, parseInstant } from "../time";
import type { ScenarioInput } from "./schema";

/** The demo game, for the app to register (`npm run emulator -- --demo`). Sandbox-style: status testing. */
export const DEMO_GAME_ID = "demo-game";
export const DEMO_GAME_NAME = "Demo Game";
export const DEMO_GAME_SECRET = "gs_demo_3f9a1c7e5b2d4086";
export const DEMO_WEBHOOK_SECRET = "whsec_demo_8c41e2a97d5b3f60";
export const DEMO_CLOCK = "2026-11-20T12:00:00Z";
export const DEMO_SUBSCRIPTIONS = 3_000;
export const DEMO_RECIPIENTS = 400;
/** The recipient with more than 500 renewal lines a month (the inline cap truncates). */
export const DEMO_BIG_RECIPIENT_ID = 100_001;
/** A recipient id with no player record (reports resolved: false). */
export const DEMO_UNRESOLVED_RECIPIENT_ID = 999_999;
const RECIPIENT_BASE_ID = 100_000;
const BIG_RECIPIENT_SUBSCRIPTIONS = 620;
const PRICES = ["4.99", "9.99", "14.99", "19.99", "29.99", "49.99"];
const PERCENTS = ["5.00", "10.00", "12.50", "15.00", "20.00", "25.00"];
const ITEMS = [
  ["gold-pass", "Gold Pass"],
  ["silver-pass", "Silver Pass"],
  ["creator-club", "Creator Club"],
  ["battle-pass", "Battle Pass"],
  ["vip", "VIP Membership"],
] as const;

type Rng = () => number;

function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)] as T;
}

function alnum(rng: Rng, length: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(rng() * alphabet.length)];
  return out;
}

type SubInput = NonNullable<ScenarioInput["subscriptions"]>[number];
type PeriodInput = NonNullable<SubInput["periods"]>[number];
type RefundInput = NonNullable<SubInput["refunds"]>[number];

/** Splits a period amount into 2 or 3 partial refunds that add up to it exactly (they compose). */
function splitAmount(rng: Rng, amount: string): string[] {
  const cents = money(amount).times(100).toNumber();
  const parts = rng() < 0.5 ? 2 : 3;
  const out: number[] = [];
  let left = cents;
  for (let i = 0; i < parts - 1; i++) {
    const part = Math.max(1, Math.floor((left / (parts - i)) * (0.6 + rng() * 0.8)));
    out.push(Math.min(part, left - (parts - i - 1)));
    left -= out[out.length - 1] as number;
  }
  out.push(left);
  return out.map((c) => formatUsd(new Money(c).dividedBy(100)));
}

/**
 * Deterministic demo data: the same seed gives the same scenario. One sandbox game with about 3,000 subscriptions
 * over the 18 months before the clock and about 400 recipients, covering every case the dashboard shows.
 */
export function generateDemoScenario(options: { seed?: number; clock?: string } = {}): ScenarioInput {
  const rng = mulberry32(options.seed ?? 1);
  // Funding and refund-basis variety draws from its own stream, so that adding it left the rest of a seed's data as
  // it was (subscriptions, prices, refunds and recipients).
  const variety = mulberry32(((options.seed ?? 1) ^ 0x5bd1e995) >>> 0);
  const clockText = options.clock ?? DEMO_CLOCK;
  const clock = parseInstant(clockText);
  if (clock === null) throw new Error(`demo clock is not a timestamp: ${clockText}`);
  const horizon = addInterval(clock, "month", -18);

  const players: NonNullable<ScenarioInput["players"]> = [];
  const cards: NonNullable<ScenarioInput["cards"]> = [];
  const subscriptions: SubInput[] = [];

  for (let r = 1; r <= DEMO_RECIPIENTS; r++) {
    const id = RECIPIENT_BASE_ID + r;
    players.push({
      game_id: DEMO_GAME_ID,
      player_id: id,
      email: `creator${r}@demo.example`,
      name: `Creator ${r}`,
      identity_id: `idn_creator_${r}`,
      date_joined: formatInstant(horizon - 30 * DAY + r * HOUR),
    });
  }

  let playerId = 0;
  let cardId = 0;
  let lastPlayer = 0;
  for (let i = 0; i < DEMO_SUBSCRIPTIONS; i++) {
    const big = i < BIG_RECIPIENT_SUBSCRIPTIONS;
    // About one subscriber in ten holds a second subscription.
    const reuse = lastPlayer > 0 && rng() < 0.1;
    const subscriber = reuse ? lastPlayer : ++playerId;
    if (!reuse) {
      const balance = rng() < 0.3 ? (Math.floor(rng() * 3000) / 10).toFixed(2) : "0.00";
      players.push({
        game_id: DEMO_GAME_ID,
        player_id: subscriber,
        email: `player${subscriber}@demo.example`,
        name: `Player ${subscriber}`,
        identity_id: `idn_player_${subscriber}`,
        date_joined: formatInstant(horizon - 60 * DAY + subscriber * MINUTE),
        balance_coins: balance,
      });
    }
    lastPlayer = subscriber;

    const pcstore = !big && rng() < 0.04;
    const walletOnly = !big && !pcstore && rng() < 0.05;
    // Whole seconds keep the demo's timestamps readable.
    const createdAt =
      Math.floor((big ? horizon + rng() * 80 * DAY : horizon + rng() * (clock - horizon - 2 * DAY)) / 1000) * 1000;
    if (!pcstore && !walletOnly && !reuse) {
      cardId++;
      const expired = rng() < 0.05;
      if (expired) {
        cards.push({
          game_id: DEMO_GAME_ID,
          player_id: subscriber,
          card_id: 50_000 + cardId,
          last_four: String(1000 + (cardId % 9000)).padStart(4, "0"),
          brand: "mastercard",
          exp_month: 1,
          exp_year: 2025,
          created_at: formatInstant(createdAt - 200 * DAY),
        });
      }
      cards.push({
        game_id: DEMO_GAME_ID,
        player_id: subscriber,
        card_id: cardId,
        last_four: String(4000 + (cardId % 6000)).padStart(4, "0"),
        brand: pick(rng, ["visa", "mastercard", "amex"]),
        exp_month: 1 + Math.floor(rng() * 12),
        exp_year: 2028 + Math.floor(rng() * 4),
        created_at: formatInstant(createdAt - DAY),
      });
    }

    const [itemId, itemName] = pick(rng, ITEMS);
    const amount = big ? "9.99" : pick(rng, PRICES);
    const roll = rng();
    let status: SubInput["status"] = "active";
    if (pcstore && roll < 0.15) status = "pending_pcstore_authorization";
    else if (!big && roll < 0.1) status = "canceled";
    else if (!big && roll < 0.14) status = "expired";
    else if (!big && roll < 0.17) status = "past_due";
    else if (!big && roll < 0.18) status = "awaiting_authentication";
    const cancelAtPeriodEnd = status === "active" && !big && rng() < 0.03;

    let revenueShare: SubInput["revenue_share"] = null;
    if (big) revenueShare = { recipient_player_id: DEMO_BIG_RECIPIENT_ID, percent: "10.00" };
    else if (rng() < 0.85) {
      // Skewed: low recipient ids get more subscriptions.
      const r = 2 + Math.floor(rng() ** 1.6 * (DEMO_RECIPIENTS - 1));
      revenueShare = {
        recipient_player_id: i % 450 === 7 ? DEMO_UNRESOLVED_RECIPIENT_ID : RECIPIENT_BASE_ID + r,
        percent: pick(rng, PERCENTS),
      };
    }
    const percentChanged = revenueShare !== null && rng() < 0.03;

    const subscriptionId = `SUB_${Math.floor(createdAt / 1000)}_${alnum(rng, 8)}`;
    const periods: PeriodInput[] = [];
    const refunds: RefundInput[] = [];
    const priceHistory = !big && rng() < 0.04 ? pick(rng, PRICES) : null;
    let start = createdAt;
    let seq = 0;
    const cutoff =
      status === "canceled" || status === "expired" ? createdAt + Math.floor(rng() * (clock - createdAt)) : clock;
    while (status !== "pending_pcstore_authorization" && start <= cutoff) {
      seq++;
      const end = addInterval(start, "month", 1, new Date(createdAt).getUTCDate());
      const isLast = addInterval(end, "month", 0) > cutoff;
      const failedLast =
        isLast && (status === "expired" || status === "past_due" || status === "awaiting_authentication");
      const periodAmount = priceHistory && seq <= 3 ? priceHistory : amount;
      if (failedLast) {
        periods.push({
          period_seq: seq,
          status: status === "expired" ? "failed" : "pending",
          period_start: formatInstant(start),
          period_end: formatInstant(end),
          amount_usd: periodAmount,
          attempts: status === "expired" ? 4 : 1 + Math.floor(rng() * 2),
        });
        break;
      }
      // Paid a few minutes into its period, but never after the clock, nor after a cancellation (the cutoff): a period
      // that began just before either was paid at once.
      const paidAt = Math.min(start + Math.floor(rng() * 20) * MINUTE, cutoff);
      const period: PeriodInput = {
        period_seq: seq,
        status: "paid",
        period_start: formatInstant(start),
        period_end: formatInstant(end),
        paid_at: formatInstant(paidAt),
        amount_usd: periodAmount,
      };
      const a = rng();
      if (a < 0.003) period.attribution = "spend_order_not_found";
      else if (a < 0.005) period.attribution = "attribution_malformed";
      else if (a < 0.006) period.attribution = "attribution_not_recorded";
      if (percentChanged && seq <= 2 && revenueShare) period.percent_at_renewal = "5.00";
      // Before 2026-09-17 a card renewal could draw on the wallet first and charge the card for the rest.
      const cents = money(periodAmount).times(100).toNumber();
      if (!pcstore && !walletOnly && paidAt < Date.UTC(2026, 8, 17) && rng() < 0.05) {
        const cardCents = Math.ceil(cents * (0.3 + rng() * 0.5));
        period.funding = {
          balance_applied_coins: formatUsd(new Money(cents - cardCents).dividedBy(10)),
          card_charged_usd: formatUsd(new Money(cardCents).dividedBy(100)),
        };
      } else if (!pcstore && !walletOnly && variety() < 0.06) {
        // A wallet that covered the price paid it whole, on any date: no card charge, no mint order.
        period.funding = { balance_applied_coins: formatUsd(new Money(cents).dividedBy(10)) };
      }
      // A pcstore renewal the wallet covered (pcstore_charged_usd 0.00): refundable in coins.
      if (pcstore && rng() < 0.3) period.funding = { balance_applied_coins: formatUsd(new Money(cents).dividedBy(10)) };
      periods.push(period);

      const refundable = !pcstore || period.funding !== undefined;
      const r = rng();
      if (refundable && r < 0.045) {
        const sameMonth = rng() < 0.35;
        const at = paidAt + (sameMonth ? 2 * HOUR + Math.floor(rng() * 5 * HOUR) : DAY + Math.floor(rng() * 40 * DAY));
        if (at <= clock) {
          const kind = rng();
          const receipt = rng() >= 0.06;
          if (kind < 0.45) {
            refunds.push({
              period_seq: seq,
              amount_usd: periodAmount,
              refunded_at: formatInstant(at),
              client_request_id: `rf-${subscriptionId}-${seq}`,
              reason: "requested_by_customer",
              receipt,
            });
          } else if (kind < 0.75) {
            const partial = formatUsd(
              money(periodAmount)
                .times(0.3 + rng() * 0.4)
                .toDecimalPlaces(2),
            );
            refunds.push({
              period_seq: seq,
              amount_usd: partial,
              refunded_at: formatInstant(at),
              client_request_id: `rf-${subscriptionId}-${seq}`,
              reason: "goodwill",
              receipt,
            });
          } else {
            // Now and then the first part is known only from the period row and the later ones have receipts.
            const rowFirst = receipt && variety() < 0.2;
            splitAmount(rng, periodAmount).forEach((part, k) => {
              const when = Math.min(clock, at + k * (sameMonth ? HOUR : 3 * DAY));
              const withReceipt = receipt && !(rowFirst && k === 0);
              refunds.push({
                period_seq: seq,
                amount_usd: part,
                refunded_at: formatInstant(when),
                client_request_id: `rf-${subscriptionId}-${seq}-${k + 1}`,
                reason: "partial_service",
                receipt: withReceipt,
              });
            });
          }
        }
      }
      start = end;
    }

    const sub: SubInput = {
      game_id: DEMO_GAME_ID,
      subscription_id: subscriptionId,
      player_id: subscriber,
      item_id: itemId,
      item_name: itemName,
      amount_usd: amount,
      interval: "month",
      interval_count: 1,
      created_at: formatInstant(createdAt),
      status,
      funding_rail: pcstore ? "pcstore" : "card",
      wallet_only: walletOnly,
      revenue_share: revenueShare,
      cancel_at_period_end: cancelAtPeriodEnd,
      periods,
      refunds,
    };
    if (status === "active" && !pcstore && rng() < 0.03) {
      // Staged price changes; one in three is above double the agreed price and is never applied.
      // Never the current price: sending that clears a staged change, so none is ever staged at it.
      sub.pending_amount_usd =
        rng() < 0.33
          ? formatUsd(money(amount).times(3))
          : pick(
              rng,
              PRICES.filter((price) => price !== amount),
            );
    }
    if (status === "canceled") {
      sub.canceled_at = formatInstant(cutoff);
      sub.ended_at = formatInstant(cutoff);
    }
    if (periods.length === 0 && status !== "pending_pcstore_authorization") continue;
    subscriptions.push(sub);
  }

  return {
    clock: clockText,
    games: [
      {
        game_id: DEMO_GAME_ID,
        name: DEMO_GAME_NAME,
        status: "testing",
        secret: DEMO_GAME_SECRET,
        fee_percent: "10.00",
        environment: "both",
        currency_name: "Gems",
        webhooks: [],
      },
    ],
    players,
    cards,
    subscriptions,
  };
}
