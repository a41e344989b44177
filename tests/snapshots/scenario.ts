import type { ScenarioInput } from "@/emulator/scenario/schema";

/**
 * Scenarios built in code for snapshot tests and the bench: a game whose renewals, recipients and reversals are laid
 * out so that the expected figures are known without reading the emulator's answer.
 */

export const GAME_ID = "snap-game";
export const GAME_SECRET = "gs_snapshot_test_secret";

type SubInput = NonNullable<ScenarioInput["subscriptions"]>[number];

export type ScenarioShape = {
  /** Recipients with the same number of renewals each. */
  recipients: number;
  renewalsPerRecipient: number;
  /** Window of the renewals: paid_at spread evenly over [start, end). */
  start: string;
  end: string;
  /** Extra renewals of one recipient (player id 900001), for the inline-cap tests. */
  heavyRecipientLines?: number;
  /** Periods refunded in full, spread over the renewals. */
  reversals?: number;
  /** How long after settling a reversed period is refunded (default 1 second). */
  refundDelayMs?: number;
  /** Renewals without a revenue share (unattributed). */
  unattributed?: number;
  clock?: string;
  price?: string;
};

export const HEAVY_RECIPIENT_ID = 900_001;
const RECIPIENT_BASE = 100_000;

function iso(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * Subscriptions of 12 daily periods each, every period paid at an evenly spaced instant of the window, each
 * subscription crediting one recipient at 20%. Reversals refund whole periods 1 second after they settled.
 */
export function buildScenario(shape: ScenarioShape): ScenarioInput {
  const start = Date.parse(shape.start);
  const end = Date.parse(shape.end);
  const price = shape.price ?? "10.00";
  const subscriptions: SubInput[] = [];
  const players: NonNullable<ScenarioInput["players"]> = [];
  const cards: NonNullable<ScenarioInput["cards"]> = [];
  const periodsPerSub = 12;

  type Plan = { recipient: number | null; count: number };
  const plans: Plan[] = [];
  for (let r = 1; r <= shape.recipients; r++)
    plans.push({ recipient: RECIPIENT_BASE + r, count: shape.renewalsPerRecipient });
  if (shape.heavyRecipientLines) plans.push({ recipient: HEAVY_RECIPIENT_ID, count: shape.heavyRecipientLines });
  if (shape.unattributed) plans.push({ recipient: null, count: shape.unattributed });
  const totalRenewals = plans.reduce((n, p) => n + p.count, 0);
  const step = (end - start) / totalRenewals;

  for (let r = 1; r <= shape.recipients; r++) {
    players.push({
      game_id: GAME_ID,
      player_id: RECIPIENT_BASE + r,
      email: `creator${r}@snap.test`,
      name: `Creator ${r}`,
      date_joined: "2024-01-01T00:00:00Z",
    });
  }
  if (shape.heavyRecipientLines) {
    players.push({
      game_id: GAME_ID,
      player_id: HEAVY_RECIPIENT_ID,
      email: "heavy@snap.test",
      name: "Heavy Creator",
      date_joined: "2024-01-01T00:00:00Z",
    });
  }

  let slot = 0;
  let subNo = 0;
  let reversalsLeft = shape.reversals ?? 0;
  const reversalEvery = shape.reversals ? Math.max(1, Math.floor(totalRenewals / shape.reversals)) : Infinity;
  let renewalNo = 0;
  // Interleave recipients so that every part of the window holds renewals of many recipients.
  const queues = plans.map((plan) => ({ ...plan, left: plan.count }));
  const order: (number | null)[] = [];
  while (order.length < totalRenewals) {
    for (const q of queues) {
      if (q.left > 0) {
        order.push(q.recipient);
        q.left--;
      }
    }
  }
  const open = new Map<string, { sub: SubInput; used: number }>();
  for (const recipient of order) {
    const key = String(recipient);
    let current = open.get(key);
    if (!current || current.used >= periodsPerSub) {
      subNo++;
      const playerId = 1_000_000 + subNo;
      players.push({
        game_id: GAME_ID,
        player_id: playerId,
        email: `p${subNo}@snap.test`,
        name: null,
        date_joined: "2024-01-01T00:00:00Z",
      });
      cards.push({
        game_id: GAME_ID,
        player_id: playerId,
        card_id: subNo,
        last_four: "4242",
        exp_month: 12,
        exp_year: 2035,
        created_at: "2024-01-01T00:00:00Z",
      });
      const sub: SubInput = {
        game_id: GAME_ID,
        subscription_id: `SUB_1700000000_${String(subNo).padStart(8, "0")}`,
        player_id: playerId,
        item_id: "pass",
        item_name: "Pass",
        amount_usd: price,
        created_at: iso(start - 86_400_000),
        status: "active",
        card_id: subNo,
        revenue_share: recipient === null ? null : { recipient_player_id: recipient, percent: "20.00" },
        periods: [],
        refunds: [],
      };
      subscriptions.push(sub);
      current = { sub, used: 0 };
      open.set(key, current);
    }
    current.used++;
    const paidAt = start + Math.floor(slot * step);
    slot++;
    renewalNo++;
    const seq = current.used;
    (current.sub.periods as NonNullable<SubInput["periods"]>).push({
      period_seq: seq,
      status: "paid",
      period_start: iso(paidAt),
      period_end: iso(paidAt + 86_400_000),
      paid_at: iso(paidAt),
    });
    const delay = shape.refundDelayMs ?? 1000;
    if (reversalsLeft > 0 && renewalNo % reversalEvery === 0 && paidAt + delay < end) {
      reversalsLeft--;
      (current.sub.refunds as NonNullable<SubInput["refunds"]>).push({
        period_seq: seq,
        amount_usd: price,
        refunded_at: iso(paidAt + delay),
      });
    }
  }
  return {
    clock: shape.clock ?? iso(end + 86_400_000),
    games: [{ game_id: GAME_ID, name: "Snapshot Game", status: "live", secret: GAME_SECRET, fee_percent: "10.00" }],
    players,
    cards,
    subscriptions,
  };
}
