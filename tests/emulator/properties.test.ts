import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatUsd, Money, money, percentOf, sumMoney } from "@/lib/money";
import type { ScenarioInput } from "@/emulator/scenario/schema";
import { addInterval, DAY, formatInstant, HOUR, MINUTE } from "@/emulator/time";
import { startClient, type Client } from "./helpers";

const SECRET = "gs_props";
const BASE = Date.UTC(2025, 5, 1);
const CLOCK = Date.UTC(2026, 5, 1);
const RECIPIENTS = [2, 3, 4, 99]; // 99 has no player record

const centsToUsd = (cents: number) => formatUsd(new Money(cents).dividedBy(100));

const refundPlanArb = fc.record({
  weights: fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 3 }),
  complete: fc.boolean(),
  // Per refund: with a receipt, or known only from the period row (one period may mix both).
  receipts: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  delaysHours: fc.array(fc.integer({ min: 0, max: 1500 }), { minLength: 3, maxLength: 3 }),
});

const periodArb = fc.record({
  attribution: fc.constantFrom(
    "recorded",
    "recorded",
    "recorded",
    "spend_order_not_found",
    "attribution_malformed",
    "attribution_not_recorded",
  ),
  minuteOffset: fc.integer({ min: 0, max: 600 }),
  refund: fc.option(refundPlanArb, { freq: 2 }),
});

const subscriptionArb = fc.record({
  amountCents: fc.integer({ min: 1, max: 60_000 }),
  percentBasis: fc.option(fc.integer({ min: 0, max: 10_000 }), { freq: 5 }),
  recipient: fc.constantFrom(...RECIPIENTS),
  startDay: fc.integer({ min: 0, max: 90 }),
  periods: fc.array(periodArb, { minLength: 1, maxLength: 6 }),
});

const scenarioArb = fc.record({
  feeBasis: fc.constantFrom(0, 1000, 1250, 2999, 3000),
  subscriptions: fc.array(subscriptionArb, { minLength: 1, maxLength: 7 }),
});

type Generated = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

/** Splits `cents` by weights; a partial plan refunds only part of it. Every part is at least one cent. */
function refundParts(cents: number, weights: number[], complete: boolean): number[] {
  const total = complete ? cents : Math.floor(cents * 0.8);
  if (total < weights.length) return complete && cents >= 1 ? [cents] : [];
  const sum = weights.reduce((a, b) => a + b, 0);
  const parts = weights.map((w) => Math.max(1, Math.floor((total * w) / sum)));
  const used = parts.slice(0, -1).reduce((a, b) => a + b, 0);
  parts[parts.length - 1] = total - used;
  return parts.every((p) => p >= 1) ? parts : [];
}

function toScenario(generated: Generated): ScenarioInput {
  const subscriptions: NonNullable<ScenarioInput["subscriptions"]> = generated.subscriptions.map((s, index) => {
    const created = BASE + s.startDay * DAY;
    const periods: any[] = [];
    const refunds: any[] = [];
    s.periods.forEach((p, i) => {
      const start = addInterval(created, "month", i);
      const paidAt = start + p.minuteOffset * MINUTE;
      periods.push({
        period_seq: i + 1,
        status: "paid",
        period_start: formatInstant(start),
        period_end: formatInstant(addInterval(created, "month", i + 1)),
        paid_at: formatInstant(paidAt),
        attribution: p.attribution,
      });
      if (!p.refund) return;
      let at = paidAt;
      refundParts(s.amountCents, p.refund.weights, p.refund.complete).forEach((cents, k) => {
        at += (p.refund!.delaysHours[k] ?? 1) * HOUR;
        if (at > CLOCK) return;
        refunds.push({
          period_seq: i + 1,
          amount_usd: centsToUsd(cents),
          refunded_at: formatInstant(at),
          receipt: p.refund!.receipts[k] ?? true,
          client_request_id: `r-${index}-${i}-${k}`,
        });
      });
    });
    return {
      game_id: "g",
      subscription_id: `SUB_1767225600_P${String(index).padStart(7, "0")}`,
      player_id: 1,
      item_id: "item",
      item_name: "Item",
      amount_usd: centsToUsd(s.amountCents),
      created_at: formatInstant(created),
      status: "active",
      revenue_share:
        s.percentBasis === null ? null : { recipient_player_id: s.recipient, percent: centsToUsd(s.percentBasis) },
      periods,
      refunds,
    };
  });
  return {
    clock: formatInstant(CLOCK),
    games: [
      { game_id: "g", name: "Props", status: "live", secret: SECRET, fee_percent: centsToUsd(generated.feeBasis) },
    ],
    players: [1, 2, 3, 4].map((id) => ({
      game_id: "g",
      player_id: id,
      email: `p${id}@example.test`,
      date_joined: "2025-01-01",
    })),
    subscriptions,
  };
}

let client: Client;

beforeAll(async () => {
  client = await startClient(
    {
      scenario: { clock: formatInstant(CLOCK), games: [{ game_id: "g", name: "P", status: "live", secret: SECRET }] },
      rateLimits: "off",
    },
    SECRET,
  );
});
afterAll(() => client.close());

async function load(generated: Generated): Promise<ScenarioInput> {
  const scenario = toScenario(generated);
  const loaded = await client.admin("/scenario", scenario);
  if (loaded.status !== 200) throw new Error(`scenario refused: ${JSON.stringify(loaded.body)}`);
  return scenario;
}

async function allPeriods(scenario: ScenarioInput): Promise<any[]> {
  const out: any[] = [];
  for (const sub of scenario.subscriptions ?? []) {
    const call = await client.get(`/api/subscriptions/reporting/subscriptions/${sub.subscription_id}/attribution`, {
      query: { limit: 100 },
    });
    out.push(...call.body.periods);
  }
  return out;
}

const MONEY_TOTALS = [
  "settled_gross_usd",
  "invo_fee_usd",
  "partner_revenue_settled_usd",
  "partner_revenue_reversed_usd",
  "partner_revenue_usd",
  "gross_attributed_usd",
  "reversed_attributed_usd",
  "net_attributed_usd",
] as const;
const COUNT_TOTALS = [
  "renewals_settled",
  "renewals_with_attribution",
  "renewals_without_attribution",
  "refund_events_in_window",
  "reversals_without_receipts",
] as const;

async function windowReport(start: number, end: number): Promise<any> {
  const call = await client.get("/api/subscriptions/reporting/attribution", {
    query: { start: formatInstant(start), end: formatInstant(end), limit: 100 },
  });
  if (call.status !== 200) throw new Error(`report failed: ${JSON.stringify(call.body)}`);
  return call.body;
}

describe("properties of random scenarios", () => {
  it("legs add up to the amount and attribution follows the recorded base and percent", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (generated) => {
        const scenario = await load(generated);
        for (const line of await allPeriods(scenario)) {
          expect(sumMoney([line.invo_fee_usd, line.partner_revenue_settled_usd]).equals(money(line.amount_usd))).toBe(
            true,
          );
          expect(percentOf(line.amount_usd, centsToUsd(generated.feeBasis)).equals(money(line.invo_fee_usd))).toBe(
            true,
          );
          if (line.attribution) {
            expect(line.attribution.base_usd).toBe(line.partner_revenue_settled_usd);
            expect(percentOf(line.attribution.base_usd, line.attribution.percent_at_renewal).toFixed(2)).toBe(
              line.attribution.attributed_amount_usd,
            );
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it("a fully refunded period nets to zero", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (generated) => {
        const scenario = await load(generated);
        for (const line of await allPeriods(scenario)) {
          if (line.status !== "refunded") continue;
          const detail = (await client.get(`/api/subscriptions/reporting/periods/${line.period_id}`)).body;
          const reversed = sumMoney(detail.refunds.events.map((e: any) => e.reversed_attributed_usd));
          const attributed = money(line.attribution?.attributed_amount_usd ?? "0.00");
          expect(attributed.minus(reversed).toFixed(2)).toBe("0.00");
          expect(detail.refunds.refunded_to_date_usd).toBe(line.amount_usd);
          if (detail.refunds.basis === "refund_receipts") {
            expect(detail.fee_legs.partner_revenue_usd).toBe("0.00");
            expect(detail.fee_legs.partner_leg_reversed).toBe(detail.fee_legs.partner_revenue_settled_usd !== "0.00");
            // The card fee charged to the partner is the service's fee, kept.
            expect(sumMoney(detail.refunds.events.map((e: any) => e.partner_revenue_reversed_usd)).toFixed(2)).toBe(
              line.partner_revenue_settled_usd,
            );
          }
        }
        // Over a window holding every settlement and refund, a fully refunded period contributes nothing net.
        const whole = await windowReport(BASE, CLOCK);
        const lines = await allPeriods(scenario);
        const expectedNet = sumMoney(
          lines.filter((l) => l.status !== "refunded" && l.attribution).map((l) => l.attribution.attributed_amount_usd),
        );
        const partialReversals = sumMoney(
          (
            await Promise.all(
              lines
                .filter((l) => l.status !== "refunded" && l.attribution && l.refund.refunded_amount_usd !== "0.00")
                .map(
                  async (l) =>
                    (
                      await client.get(`/api/subscriptions/reporting/periods/${l.period_id}`)
                    ).body.refunds.events,
                ),
            )
          )
            .flat()
            .map((e: any) => e.reversed_attributed_usd),
        );
        expect(whole.totals.net_attributed_usd).toBe(expectedNet.minus(partialReversals).toFixed(2));
      }),
      { numRuns: 50 },
    );
  });

  it("the report of a window equals the sum of the reports of any split into adjacent sub-windows", async () => {
    // Cuts at any minute, or at midnight, where renewals with no minute offset settle exactly on the bound.
    const minutes = Math.floor((CLOCK - BASE) / MINUTE);
    const cutArb = fc.oneof(
      fc.integer({ min: 1, max: minutes - 1 }),
      fc.integer({ min: 1, max: minutes / 1440 - 1 }).map((d) => d * 1440),
    );
    const splitArb = fc.uniqueArray(cutArb, { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(scenarioArb, splitArb, async (generated, cuts) => {
        await load(generated);
        const bounds = [BASE, ...cuts.sort((a, b) => a - b).map((m) => BASE + m * MINUTE), CLOCK];
        const whole = await windowReport(BASE, CLOCK);
        const parts = [];
        for (let i = 0; i < bounds.length - 1; i++)
          parts.push(await windowReport(bounds[i] as number, bounds[i + 1] as number));
        for (const field of MONEY_TOTALS) {
          expect(sumMoney(parts.map((p) => p.totals[field])).toFixed(2)).toBe(whole.totals[field]);
        }
        for (const field of COUNT_TOTALS) {
          expect(parts.reduce((n, p) => n + p.totals[field], 0)).toBe(whole.totals[field]);
        }
        for (const reason of Object.keys(whole.totals.unattributed_reasons)) {
          expect(parts.reduce((n, p) => n + p.totals.unattributed_reasons[reason], 0)).toBe(
            whole.totals.unattributed_reasons[reason],
          );
        }
        type Acc = {
          gross: ReturnType<typeof money>;
          reversed: ReturnType<typeof money>;
          net: ReturnType<typeof money>;
          renewals: number;
        };
        const summed = new Map<number, Acc>();
        for (const part of parts) {
          for (const r of part.recipients) {
            const acc = summed.get(r.recipient.player_id) ?? {
              gross: new Money(0),
              reversed: new Money(0),
              net: new Money(0),
              renewals: 0,
            };
            acc.gross = acc.gross.plus(r.gross_attributed_usd);
            acc.reversed = acc.reversed.plus(r.reversed_attributed_usd);
            acc.net = acc.net.plus(r.net_attributed_usd);
            acc.renewals += r.renewal_count;
            summed.set(r.recipient.player_id, acc);
          }
        }
        expect([...summed.keys()].sort()).toEqual(whole.recipients.map((r: any) => r.recipient.player_id).sort());
        for (const r of whole.recipients) {
          const acc = summed.get(r.recipient.player_id) as Acc;
          expect(acc.gross.toFixed(2)).toBe(r.gross_attributed_usd);
          expect(acc.reversed.toFixed(2)).toBe(r.reversed_attributed_usd);
          expect(acc.net.toFixed(2)).toBe(r.net_attributed_usd);
          expect(acc.renewals).toBe(r.renewal_count);
        }
      }),
      { numRuns: 60 },
    );
  });
});
