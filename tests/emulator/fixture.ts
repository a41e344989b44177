import type { ScenarioInput } from "@/emulator/scenario/schema";

/** A small, hand-checked scenario. Figures in the comments follow the fee 10% rule and the attribution rule. */

export const SECRET = "gs_test_one";
export const OLD_SECRET = "gs_old_one";
export const SECRET_TWO = "gs_test_two";
export const SECRET_SUSPENDED = "gs_test_three";
export const SECRET_SANDBOX_ONLY = "gs_sandbox_four";

export const SUB = {
  /** alice, card, 10.00, bob 20%: fee 1.00, partner 9.00, attributed 1.80 a period; period 1 fully refunded. */
  monthly: "SUB_1767225600_AAAA0001",
  /** alice, card, 9.99, bob 15%: fee 1.00, partner 8.99, attributed 1.35. */
  ninetyNine: "SUB_1767225600_AAAA0002",
  /** carol, wallet-only, 5.00, no revenue share. */
  wallet: "SUB_1767225600_AAAA0003",
  /** dave, pcstore, 8.00, bob 10%: period 1 charged through the pcstore, period 2 covered by the wallet. */
  pcstore: "SUB_1767225600_AAAA0004",
  /** alice, canceled. */
  canceled: "SUB_1767225600_AAAA0005",
  /** carol, past_due (dunning), recipient 777 has no player record. */
  pastDue: "SUB_1767225600_AAAA0006",
  /** alice, 20.00, period 1 paid 50.00 coins from the wallet and 15.00 by card; bob 25%: attributed 4.50. */
  mixed: "SUB_1767225600_AAAA0007",
  /** alice, 12.00, period 1 without mint order, period 2 without payment reference. */
  brokenRecords: "SUB_1767225600_AAAA0008",
  /** carol, awaiting_authentication, never billed. */
  neverBilled: "SUB_1767225600_AAAA0009",
  /** alice, 30.00, bob 10%: refunds known only from the period row. */
  periodRow: "SUB_1767225600_AAAA0010",
  /** game two's subscription. */
  otherGame: "SUB_1767225600_BBBB0001",
} as const;

const month = (m: number, d: number) => `2026-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}T00:00:00Z`;

function monthly(seqs: number[], day: number, firstMonth: number, extra: Record<number, object> = {}) {
  return seqs.map((seq) => ({
    period_seq: seq,
    status: "paid" as const,
    period_start: month(firstMonth + seq - 1, day),
    period_end: month(firstMonth + seq, day),
    paid_at: month(firstMonth + seq - 1, day),
    ...(extra[seq] ?? {}),
  }));
}

/** The first period of a subscription created on 2026-05-15: a month, paid that day. */
export const FIRST_PERIOD_FROM_MAY_15 = {
  period_seq: 1,
  status: "paid",
  period_start: "2026-05-15",
  period_end: "2026-06-15",
  paid_at: "2026-05-15",
} as const;

type ScenarioSubscription = NonNullable<ScenarioInput["subscriptions"]>[number];

/**
 * Player 1 of the live game g1 (p@example.test, holding `balanceCoins` when given) with one card and one active Gold
 * subscription of their own (SUB.monthly); `subscription` gives its price, dates and periods.
 */
export function oneSubscriptionScenario(input: {
  clock: string;
  balanceCoins?: string;
  subscription: Omit<ScenarioSubscription, "game_id" | "subscription_id" | "player_id" | "item_id" | "item_name">;
}): ScenarioInput {
  const player = { game_id: "g1", player_id: 1, email: "p@example.test", date_joined: "2026-01-01" };
  return {
    clock: input.clock,
    games: [{ game_id: "g1", name: "Game One", status: "live", secret: SECRET }],
    players: [input.balanceCoins === undefined ? player : { ...player, balance_coins: input.balanceCoins }],
    cards: [
      {
        game_id: "g1",
        player_id: 1,
        card_id: 1,
        last_four: "4242",
        exp_month: 1,
        exp_year: 2031,
        created_at: "2026-01-01",
      },
    ],
    subscriptions: [
      {
        game_id: "g1",
        subscription_id: SUB.monthly,
        player_id: 1,
        item_id: "gold",
        item_name: "Gold",
        ...input.subscription,
      },
    ],
  };
}

export function fixtureScenario(): ScenarioInput {
  return {
    clock: "2026-06-01T00:00:00Z",
    games: [
      {
        game_id: "g1",
        name: "Game One",
        status: "live",
        secret: SECRET,
        previous_secret: OLD_SECRET,
        previous_secret_rotated_at: "2026-05-28T00:00:00Z",
        fee_percent: "10.00",
        webhooks: [],
      },
      { game_id: "g2", name: "Game Two", status: "testing", secret: SECRET_TWO },
      { game_id: "g3", name: "Game Three", status: "suspended", secret: SECRET_SUSPENDED },
      { game_id: "g4", name: "Game Four", status: "testing", secret: SECRET_SANDBOX_ONLY, environment: "sandbox" },
    ],
    players: [
      {
        game_id: "g1",
        player_id: 1,
        email: "alice@example.test",
        name: "Alice",
        identity_id: "idn_1",
        date_joined: "2025-12-01T00:00:00Z",
        balance_coins: "100.00",
      },
      {
        game_id: "g1",
        player_id: 2,
        email: "bob@example.test",
        name: "Bob",
        identity_id: "idn_2",
        date_joined: "2025-12-02T00:00:00Z",
      },
      {
        game_id: "g1",
        player_id: 3,
        email: "carol@example.test",
        name: "Carol",
        identity_id: "idn_3",
        date_joined: "2025-12-03T00:00:00Z",
        balance_coins: "500.00",
      },
      {
        game_id: "g1",
        player_id: 4,
        email: "dave@example.test",
        name: "Dave",
        identity_id: "idn_4",
        date_joined: "2025-12-04T00:00:00Z",
        balance_coins: "20.00",
      },
      {
        game_id: "g2",
        player_id: 1,
        email: "zed@example.test",
        name: "Zed",
        identity_id: "idn_z",
        date_joined: "2025-12-05T00:00:00Z",
      },
    ],
    cards: [
      {
        game_id: "g1",
        player_id: 1,
        card_id: 11,
        last_four: "4242",
        brand: "visa",
        exp_month: 12,
        exp_year: 2030,
        created_at: "2026-01-01T00:00:00Z",
      },
      {
        game_id: "g1",
        player_id: 1,
        card_id: 12,
        last_four: "0005",
        brand: "amex",
        exp_month: 12,
        exp_year: 2025,
        created_at: "2026-01-02T00:00:00Z",
      },
      {
        game_id: "g1",
        player_id: 1,
        card_id: 13,
        last_four: "1881",
        brand: "mastercard",
        exp_month: 3,
        exp_year: 2029,
        created_at: "2026-02-01T00:00:00Z",
      },
      {
        game_id: "g1",
        player_id: 3,
        card_id: 31,
        last_four: "3333",
        brand: "visa",
        exp_month: 6,
        exp_year: 2031,
        created_at: "2026-03-01T00:00:00Z",
      },
      {
        game_id: "g2",
        player_id: 1,
        card_id: 91,
        last_four: "9191",
        brand: "visa",
        exp_month: 6,
        exp_year: 2031,
        created_at: "2026-03-01T00:00:00Z",
      },
    ],
    subscriptions: [
      {
        game_id: "g1",
        subscription_id: SUB.monthly,
        player_id: 1,
        item_id: "gold",
        item_name: "Gold Pass",
        amount_usd: "10.00",
        created_at: "2026-01-15T00:00:00Z",
        status: "active",
        card_id: 11,
        revenue_share: { recipient_player_id: 2, percent: "20.00" },
        periods: monthly([1, 2, 3, 4, 5], 15, 1),
        refunds: [
          {
            period_seq: 1,
            amount_usd: "10.00",
            refunded_at: "2026-02-20T00:00:00Z",
            client_request_id: "rf-1",
            reason: "duplicate",
          },
        ],
      },
      {
        game_id: "g1",
        subscription_id: SUB.ninetyNine,
        player_id: 1,
        item_id: "silver",
        item_name: "Silver Pass",
        amount_usd: "9.99",
        created_at: "2026-02-10T00:00:00Z",
        status: "active",
        card_id: 13,
        revenue_share: { recipient_player_id: 2, percent: "15.00" },
        periods: monthly([1, 2, 3, 4], 10, 2),
      },
      {
        game_id: "g1",
        subscription_id: SUB.wallet,
        player_id: 3,
        item_id: "bronze",
        item_name: "Bronze Pass",
        amount_usd: "5.00",
        created_at: "2026-03-05T00:00:00Z",
        status: "active",
        wallet_only: true,
        periods: monthly([1, 2, 3], 5, 3),
      },
      {
        game_id: "g1",
        subscription_id: SUB.pcstore,
        player_id: 4,
        item_id: "gold",
        item_name: "Gold Pass",
        amount_usd: "8.00",
        created_at: "2026-04-01T00:00:00Z",
        status: "active",
        funding_rail: "pcstore",
        revenue_share: { recipient_player_id: 2, percent: "10.00" },
        periods: monthly([1, 2], 1, 4, { 2: { funding: { balance_applied_coins: "80.00" } } }),
        next_charge_at: "2026-06-01T00:00:00Z",
      },
      {
        game_id: "g1",
        subscription_id: SUB.canceled,
        player_id: 1,
        item_id: "old",
        item_name: "Old Pass",
        amount_usd: "4.00",
        created_at: "2026-01-01T00:00:00Z",
        status: "canceled",
        periods: monthly([1], 1, 1),
        canceled_at: "2026-01-20T00:00:00Z",
        ended_at: "2026-01-20T00:00:00Z",
      },
      {
        game_id: "g1",
        subscription_id: SUB.pastDue,
        player_id: 3,
        item_id: "gold",
        item_name: "Gold Pass",
        amount_usd: "6.00",
        created_at: "2026-03-20T00:00:00Z",
        status: "past_due",
        card_id: 31,
        revenue_share: { recipient_player_id: 777, percent: "50.00" },
        periods: [
          ...monthly([1, 2], 20, 3),
          { period_seq: 3, status: "pending", period_start: month(5, 20), period_end: month(6, 20), attempts: 1 },
        ],
      },
      {
        game_id: "g1",
        subscription_id: SUB.mixed,
        player_id: 1,
        item_id: "vip",
        item_name: "VIP",
        amount_usd: "20.00",
        created_at: "2026-05-20T00:00:00Z",
        status: "active",
        card_id: 11,
        revenue_share: { recipient_player_id: 2, percent: "25.00" },
        periods: monthly([1], 20, 5, { 1: { funding: { balance_applied_coins: "50.00", card_charged_usd: "15.00" } } }),
      },
      {
        game_id: "g1",
        subscription_id: SUB.brokenRecords,
        player_id: 1,
        item_id: "gold",
        item_name: "Gold Pass",
        amount_usd: "12.00",
        created_at: "2026-04-25T00:00:00Z",
        status: "active",
        card_id: 11,
        periods: monthly([1, 2], 25, 4, { 1: { mint_order_id: null }, 2: { payment_reference: null } }),
      },
      {
        game_id: "g1",
        subscription_id: SUB.neverBilled,
        player_id: 3,
        item_id: "gold",
        item_name: "Gold Pass",
        amount_usd: "7.00",
        created_at: "2026-05-30T00:00:00Z",
        status: "awaiting_authentication",
        card_id: 31,
      },
      {
        game_id: "g1",
        subscription_id: SUB.periodRow,
        player_id: 1,
        item_id: "platinum",
        item_name: "Platinum Pass",
        amount_usd: "30.00",
        created_at: "2026-03-01T00:00:00Z",
        status: "active",
        card_id: 11,
        revenue_share: { recipient_player_id: 2, percent: "10.00" },
        periods: monthly([1, 2, 3], 1, 3),
        refunds: [
          { period_seq: 1, amount_usd: "10.00", refunded_at: "2026-03-10T00:00:00Z", receipt: false },
          { period_seq: 1, amount_usd: "5.00", refunded_at: "2026-04-03T00:00:00Z", receipt: false },
        ],
      },
      {
        game_id: "g2",
        subscription_id: SUB.otherGame,
        player_id: 1,
        item_id: "gold",
        item_name: "Gold Pass",
        amount_usd: "10.00",
        created_at: "2026-05-01T00:00:00Z",
        status: "active",
        card_id: 91,
        periods: monthly([1], 1, 5),
      },
    ],
  };
}

/** The attribution notice every report carries (spec: "settled_by_invo: false", "payer": "partner"). */
export const ATTRIBUTION_NOTICE = {
  settled_by_invo: false,
  invo_has_paid_no_recipient: true,
  document_type: "attribution_report",
  not_a_remittance_advice: true,
  payer: "partner",
};
