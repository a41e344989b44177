import type { ScenarioInput } from "./schema";

/**
 * A studio at scale, made in code (`npm run emulator -- --scale RECIPIENTS:RENEWALS [--scale-month YYYY-MM]`): one
 * game whose monthly subscriptions each renew once in the month, paid at evenly spaced instants, each crediting one
 * of the recipients at 20%. The default is the size the payout desk is built for: 100,000 recipients paid from
 * 1,000,000 renewals a month. Subscribers hold up to ten subscriptions each and pay from their wallet (no cards),
 * so that the ledger holds what the reports need and little else. One renewal in a thousand is refunded in full an
 * hour after it settled (a reversal inside the window).
 */

export const SCALE_GAME_ID = "scale-studio";
export const SCALE_GAME_SECRET = "gs_scale_studio_secret";
export const SCALE_DEFAULT = { recipients: 100_000, renewals: 1_000_000, month: "2026-10" } as const;

export type ScaleShape = { recipients: number; renewals: number; month: string };

const SUBSCRIPTIONS_PER_SUBSCRIBER = 10;
const REFUND_EVERY = 1_000;
const HOUR = 3_600_000;

function iso(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** "RECIPIENTS:RENEWALS", e.g. "100000:1000000"; null when it is not two positive whole numbers. */
export function parseScale(text: string): { recipients: number; renewals: number } | null {
  const match = /^(\d{1,7}):(\d{1,8})$/.exec(text);
  if (!match) return null;
  const recipients = Number(match[1]);
  const renewals = Number(match[2]);
  return recipients > 0 && renewals >= recipients ? { recipients, renewals } : null;
}

export function scaleScenario(shape: ScaleShape): ScenarioInput {
  const start = Date.parse(`${shape.month}-01T00:00:00Z`);
  if (!Number.isFinite(start)) throw new Error(`not a month: ${shape.month}`);
  const next = new Date(start);
  next.setUTCMonth(next.getUTCMonth() + 1);
  const end = next.getTime();
  const step = (end - start) / shape.renewals;
  const subscribers = Math.ceil(shape.renewals / SUBSCRIPTIONS_PER_SUBSCRIBER);

  const players: NonNullable<ScenarioInput["players"]> = [];
  for (let r = 1; r <= shape.recipients; r++) {
    players.push({
      game_id: SCALE_GAME_ID,
      player_id: r,
      email: `creator${r}@scale.test`,
      name: `Creator ${r}`,
      date_joined: "2024-01-01T00:00:00Z",
    });
  }
  for (let s = 1; s <= subscribers; s++) {
    players.push({
      game_id: SCALE_GAME_ID,
      player_id: shape.recipients + s,
      email: `fan${s}@scale.test`,
      date_joined: "2024-01-01T00:00:00Z",
      balance_coins: "1000.00",
    });
  }

  const subscriptions: NonNullable<ScenarioInput["subscriptions"]> = [];
  for (let i = 0; i < shape.renewals; i++) {
    const paidAt = start + Math.floor(i * step);
    const periodEnd = paidAt + (end - start);
    const refunded = i % REFUND_EVERY === REFUND_EVERY - 1 && paidAt + HOUR < end;
    subscriptions.push({
      game_id: SCALE_GAME_ID,
      subscription_id: `SUB_1700000000_${i.toString(36).toUpperCase().padStart(8, "0")}`,
      player_id: shape.recipients + 1 + Math.floor(i / SUBSCRIPTIONS_PER_SUBSCRIBER),
      item_id: "pass",
      item_name: "Creator pass",
      amount_usd: "4.99",
      created_at: iso(paidAt),
      status: "active",
      wallet_only: true,
      revenue_share: { recipient_player_id: (i % shape.recipients) + 1, percent: "20.00" },
      next_charge_at: iso(periodEnd),
      periods: [
        {
          period_seq: 1,
          status: refunded ? "refunded" : "paid",
          period_start: iso(paidAt),
          period_end: iso(periodEnd),
          paid_at: iso(paidAt),
        },
      ],
      refunds: refunded ? [{ period_seq: 1, amount_usd: "4.99", refunded_at: iso(paidAt + HOUR) }] : [],
    });
  }
  return {
    clock: iso(end + 24 * HOUR),
    games: [
      {
        game_id: SCALE_GAME_ID,
        name: "Scale Studio",
        status: "live",
        secret: SCALE_GAME_SECRET,
        environment: "both",
      },
    ],
    players,
    subscriptions,
  };
}
