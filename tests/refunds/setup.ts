import type { ScenarioInput } from "@/emulator/scenario/schema";
import { startEmulator, type RunningEmulator } from "@/emulator/server";
import { type SeenSubscriptionFields, subscriptionSeen } from "@/lib/lookup/subscription-seen";
import { saveGame } from "@/lib/games/games";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { signInAs } from "../support/users";
import type { Role } from "@/lib/auth/roles";

/**
 * One emulator and one database per test file: a small hand-checked game whose subscriptions each serve one test,
 * registered in Payout Desk as a sandbox game with pacing off.
 */
export const GAME_ID = "g-refunds";
export const GAME_SECRET = "gs_refunds_test_secret";

export const PLAYER = { id: 1, email: "alice@refunds.test" };
export const RECIPIENT_ID = 2;

/** Subscriptions by purpose; every one is alice's, card-funded, 3 paid monthly periods, bob 20%, unless noted. */
export const SUBS = {
  basic: "SUB_1767225600_BASIC001",
  dropped: "SUB_1767225600_DROPPED1",
  concurrent: "SUB_1767225600_CONCUR01",
  crash: "SUB_1767225600_CRASH001",
  crashLanded: "SUB_1767225600_CRASH002",
  exceeds: "SUB_1767225600_EXCEED01",
  limit: "SUB_1767225600_LIMIT001",
  attention: "SUB_1767225600_ATTN0001",
  changed: "SUB_1767225600_CHANGED1",
  unavailable: "SUB_1767225600_UNAVAIL1",
  /** pcstore: period 1 charged through the pcstore, period 2 covered by the wallet. */
  pcstore: "SUB_1767225600_PCSTORE1",
  /** For cancel and changes. */
  cancelEnd: "SUB_1767225600_CANCEL01",
  cancelNow: "SUB_1767225600_CANCEL02",
  canceled: "SUB_1767225600_CANCEL03",
  price: "SUB_1767225600_PRICE001",
  card: "SUB_1767225600_CARD0001",
  walletOnly: "SUB_1767225600_WALLET01",
  /** Hardening (tests/refunds/hardening.test.ts): USD 200.00 periods for the support limit, per period in total. */
  limitTotal: "SUB_1767225600_LIMTOT01",
  limitFinanceFirst: "SUB_1767225600_LIMFIN01",
  limitConcurrent: "SUB_1767225600_LIMCON01",
  /** Who drives a call: Retry, a second tab, the reconciler. */
  driver: "SUB_1767225600_DRIVER01",
  driverReconciler: "SUB_1767225600_DRIVER02",
  /** A refund landing between the review and the stored attempt. */
  raced: "SUB_1767225600_RACED001",
  staleJoined: "SUB_1767225600_STALE001",
  staleCrash: "SUB_1767225600_STALE002",
  /** The service's reduced "already processed" answer. */
  replayConfirmed: "SUB_1767225600_REPLAY01",
  replayElsewhere: "SUB_1767225600_REPLAY02",
  /** The player's email comes from the service. */
  email: "SUB_1767225600_EMAIL001",
  /** Outcome safety (tests/refunds/outcome-safety.test.ts): an unknown outcome, then an answer about nothing. */
  unknownThen401: "SUB_1767225600_UNKN4011",
  unknownThen404: "SUB_1767225600_UNKN4041",
  crashThenRefused: "SUB_1767225600_UNKNCRS1",
  /** Settled by hand: counted when refunded, intent freed when not. */
  settledRefunded: "SUB_1767225600_SETTLED1",
  settledNothing: "SUB_1767225600_SETTLED2",
  /** The hold outlives a long call. */
  longCall: "SUB_1767225600_LONGCAL1",
  /** Killed at each step of a refund call (tests/refunds/crash.test.ts). */
  killBefore: "SUB_1767225600_KILLBEF1",
  killDuring: "SUB_1767225600_KILLDUR1",
  killCommitted: "SUB_1767225600_KILLCOM1",
  killAfter: "SUB_1767225600_KILLAFT1",
  /** The processor issues the card refund, then the call fails: the retry records it as adopted. */
  adopted: "SUB_1767225600_ADOPTED1",
  /** Its card charge disputed after the refund was confirmed, before it was sent. */
  disputedUnsent: "SUB_1767225600_DISPUT01",
  /** A call that lost its attempt to another request, and one that failed before it was sent. */
  lostHold: "SUB_1767225600_LOSTHLD1",
} as const;

/** Period ids: subscription index × 10 + period_seq, so a test can name them. */
export function periodIdOf(subscriptionId: string, seq: number): number {
  const index = Object.values(SUBS).indexOf(subscriptionId as (typeof SUBS)[keyof typeof SUBS]);
  if (index < 0) throw new Error(`unknown subscription ${subscriptionId}`);
  return (index + 1) * 10 + seq;
}

const CLOCK = "2026-11-20T12:00:00Z";
const MONTHS = [
  "2026-08-15T00:00:00Z",
  "2026-09-15T00:00:00Z",
  "2026-10-15T00:00:00Z",
  "2026-11-15T00:00:00Z",
  "2026-12-15T00:00:00Z",
];

function paidPeriods(subscriptionId: string, count: number, extra: Record<number, object> = {}) {
  return Array.from({ length: count }, (_, i) => ({
    period_id: periodIdOf(subscriptionId, i + 1),
    period_seq: i + 1,
    status: "paid" as const,
    period_start: MONTHS[i] as string,
    period_end: MONTHS[i + 1] as string,
    paid_at: MONTHS[i] as string,
    ...(extra[i + 1] ?? {}),
  }));
}

export function refundScenario(): ScenarioInput {
  const cardSub = (subscriptionId: string, amount: string, overrides: Record<string, unknown> = {}) => ({
    game_id: GAME_ID,
    subscription_id: subscriptionId,
    player_id: PLAYER.id,
    item_id: "gold",
    item_name: "Gold Pass",
    amount_usd: amount,
    created_at: "2026-08-15T00:00:00Z",
    status: "active" as const,
    card_id: 11,
    revenue_share: { recipient_player_id: RECIPIENT_ID, percent: "20.00" },
    periods: paidPeriods(subscriptionId, 3),
    ...overrides,
  });
  return {
    clock: CLOCK,
    games: [
      { game_id: GAME_ID, name: "Refund Test Game", status: "testing", secret: GAME_SECRET, fee_percent: "10.00" },
    ],
    players: [
      {
        game_id: GAME_ID,
        player_id: PLAYER.id,
        email: PLAYER.email,
        name: "Alice",
        identity_id: "idn_a",
        date_joined: "2026-01-01T00:00:00Z",
        balance_coins: "100.00",
      },
      {
        game_id: GAME_ID,
        player_id: RECIPIENT_ID,
        email: "bob@refunds.test",
        name: "Bob",
        identity_id: "idn_b",
        date_joined: "2026-01-01T00:00:00Z",
      },
    ],
    cards: [
      {
        game_id: GAME_ID,
        player_id: PLAYER.id,
        card_id: 11,
        last_four: "4242",
        brand: "visa",
        exp_month: 12,
        exp_year: 2030,
        created_at: "2026-01-01T00:00:00Z",
      },
      {
        game_id: GAME_ID,
        player_id: PLAYER.id,
        card_id: 12,
        last_four: "1881",
        brand: "mastercard",
        exp_month: 3,
        exp_year: 2029,
        created_at: "2026-02-01T00:00:00Z",
      },
    ],
    subscriptions: [
      cardSub(SUBS.basic, "10.00"),
      cardSub(SUBS.dropped, "10.00"),
      cardSub(SUBS.concurrent, "20.00"),
      cardSub(SUBS.crash, "30.00"),
      cardSub(SUBS.crashLanded, "30.00"),
      cardSub(SUBS.exceeds, "12.00"),
      cardSub(SUBS.limit, "40.00"),
      cardSub(SUBS.attention, "10.00"),
      cardSub(SUBS.changed, "10.00"),
      cardSub(SUBS.unavailable, "10.00"),
      cardSub(SUBS.pcstore, "8.00", {
        funding_rail: "pcstore",
        card_id: null,
        periods: paidPeriods(SUBS.pcstore, 2, { 2: { funding: { balance_applied_coins: "80.00" } } }),
      }),
      // Paid through 2026-12-15, after the clock: a cancel at period end keeps it live until then.
      cardSub(SUBS.cancelEnd, "10.00", { periods: paidPeriods(SUBS.cancelEnd, 4) }),
      cardSub(SUBS.cancelNow, "10.00"),
      cardSub(SUBS.canceled, "10.00", {
        status: "canceled",
        periods: paidPeriods(SUBS.canceled, 1),
        canceled_at: "2026-09-01T00:00:00Z",
        ended_at: "2026-09-01T00:00:00Z",
      }),
      cardSub(SUBS.price, "10.00"),
      cardSub(SUBS.card, "10.00"),
      cardSub(SUBS.walletOnly, "5.00", { card_id: null, wallet_only: true, revenue_share: null }),
      cardSub(SUBS.limitTotal, "200.00"),
      cardSub(SUBS.limitFinanceFirst, "200.00"),
      cardSub(SUBS.limitConcurrent, "200.00"),
      cardSub(SUBS.driver, "10.00"),
      cardSub(SUBS.driverReconciler, "10.00"),
      cardSub(SUBS.raced, "20.00"),
      cardSub(SUBS.staleJoined, "10.00"),
      cardSub(SUBS.staleCrash, "10.00"),
      cardSub(SUBS.replayConfirmed, "10.00"),
      cardSub(SUBS.replayElsewhere, "10.00"),
      cardSub(SUBS.email, "10.00"),
      cardSub(SUBS.unknownThen401, "10.00"),
      cardSub(SUBS.unknownThen404, "10.00"),
      cardSub(SUBS.crashThenRefused, "10.00"),
      cardSub(SUBS.settledRefunded, "200.00"),
      cardSub(SUBS.settledNothing, "200.00"),
      cardSub(SUBS.longCall, "10.00"),
      cardSub(SUBS.killBefore, "10.00"),
      cardSub(SUBS.killDuring, "10.00"),
      cardSub(SUBS.killCommitted, "10.00"),
      cardSub(SUBS.killAfter, "10.00"),
      cardSub(SUBS.adopted, "10.00"),
      cardSub(SUBS.disputedUnsent, "10.00"),
      cardSub(SUBS.lostHold, "10.00"),
    ],
  };
}

export type RefundTestContext = {
  t: TestDatabase;
  emulator: RunningEmulator;
  sessions: Record<Role, string[]>;
  admin(path: string, body?: unknown, method?: string): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
};

export async function startRefundTest(): Promise<RefundTestContext> {
  const t = await createTestDatabase();
  applyTestEnv(t);
  const emulator = await startEmulator({ port: 0, scenario: refundScenario(), rateLimits: "off" });
  await saveGame(
    t.db,
    {
      id: GAME_ID,
      name: "Refund Test Game",
      environment: "sandbox",
      baseUrl: emulator.url,
      secret: GAME_SECRET,
      webhookSecrets: [],
    },
    { replace: false, as: { actor: null, via: "cli" } },
  );
  await t.db
    .updateTable("game")
    .set({ settings: JSON.stringify({ pacing: "off" }) })
    .where("id", "=", GAME_ID)
    .execute();
  const sessions = {} as Record<Role, string[]>;
  for (const role of ["viewer", "support", "finance", "admin"] as const) sessions[role] = await signInAs(t.db, role);
  return {
    t,
    emulator,
    sessions,
    async admin(path, body, method) {
      const response = await fetch(`${emulator.url}/__emulator${path}`, {
        method: method ?? (body === undefined ? "GET" : "POST"),
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    async close() {
      await emulator.close();
      await t.drop();
    },
  };
}

/** What the subscription's page shows of it (the `seen` its change dialogs send), read from the service over HTTP. */
export async function seenOf(emulator: RunningEmulator, subscriptionId: string): Promise<string> {
  const response = await fetch(`${emulator.url}/api/subscriptions/${subscriptionId}`, {
    headers: { "X-Game-Secret-Key": GAME_SECRET },
  });
  if (!response.ok) throw new Error(`subscription ${subscriptionId}: HTTP ${response.status}`);
  const body = (await response.json()) as { subscription: SeenSubscriptionFields };
  return subscriptionSeen(body.subscription);
}

/** Refund events the emulator recorded on a period. */
export function refundEvents(emulator: RunningEmulator, subscriptionId: string, seq: number) {
  const sub = emulator.ledger().subscriptions.get(subscriptionId);
  const period = sub?.periods.find((p) => p.periodSeq === seq);
  if (!period) throw new Error(`no period ${seq} on ${subscriptionId}`);
  return period.refunds;
}

/** A subscription's audit lines, oldest first. */
export function auditLinesOf(c: RefundTestContext, subscriptionId: string) {
  return c.t.db
    .selectFrom("audit_log")
    .select(["action", "outcome", "actor_email", "game_id", "detail"])
    .where("target", "=", subscriptionId)
    .orderBy("id")
    .execute();
}

/** A subscription as the emulator holds it now. */
export function emulatedSubscription(c: RefundTestContext, id: string) {
  const sub = c.emulator.ledger().subscriptions.get(id);
  if (!sub) throw new Error(`no ${id}`);
  return sub;
}

export { formData as form } from "../support/next-request";
