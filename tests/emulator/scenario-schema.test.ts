import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scenarioJsonSchemaText } from "@/emulator/scenario/json-schema";
import { loadScenario, ScenarioError } from "@/emulator/scenario/load";
import { scenarioSchema } from "@/emulator/scenario/schema";

/** The example of issue 3, verbatim. */
const ISSUE_EXAMPLE = {
  clock: "2026-06-01T00:00:00Z",
  games: [
    {
      game_id: "g1",
      name: "Game One",
      status: "live",
      secret: "gs_test_one",
      fee_percent: "10.00",
      webhooks: [{ url: "http://127.0.0.1:4999/hook", secret: "whsec_one", events: ["*"] }],
    },
  ],
  players: [
    {
      game_id: "g1",
      player_id: 1,
      email: "alice@example.test",
      name: "Alice",
      identity_id: "idn_1",
      date_joined: "2025-12-01T00:00:00Z",
    },
  ],
  subscriptions: [
    {
      game_id: "g1",
      subscription_id: "SUB_1767225600_aaaa0001",
      player_id: 1,
      item_id: "gold",
      item_name: "Gold Pass",
      amount_usd: "10.00",
      interval: "month",
      interval_count: 1,
      created_at: "2026-01-15T00:00:00Z",
      status: "active",
      funding_rail: "card",
      revenue_share: { recipient_player_id: 2, percent: "20.00" },
      periods: [
        {
          period_seq: 1,
          status: "paid",
          period_start: "2026-01-15T00:00:00Z",
          period_end: "2026-02-15T00:00:00Z",
          paid_at: "2026-01-15T00:00:00Z",
          amount_usd: "10.00",
          attribution: "recorded",
        },
      ],
      refunds: [
        {
          period_seq: 1,
          amount_usd: "10.00",
          refunded_at: "2026-02-20T00:00:00Z",
          client_request_id: "rf-1",
          reason: "duplicate",
          receipt: true,
        },
      ],
    },
  ],
};

describe("scenario file", () => {
  it("publishes the JSON Schema generated from the zod schema", async () => {
    const committed = await readFile(path.resolve(import.meta.dirname, "../../emulator/scenario.schema.json"), "utf8");
    expect(committed).toBe(scenarioJsonSchemaText());
  });

  it("accepts the issue's example and records its legs on load", () => {
    expect(scenarioSchema.safeParse(ISSUE_EXAMPLE).success).toBe(true);
    const ledger = loadScenario(ISSUE_EXAMPLE);
    const period = [...ledger.periods.values()][0]!;
    expect(period.invoFeeUsd.toFixed(2)).toBe("1.00");
    expect(period.attribution?.attributedUsd.toFixed(2)).toBe("1.80");
    expect(period.status).toBe("refunded");
  });

  it("names the path of a problem", () => {
    const bad = structuredClone(ISSUE_EXAMPLE) as any;
    bad.subscriptions[0].periods[0].paid_at = undefined;
    expect(() => loadScenario(bad)).toThrow(ScenarioError);
    expect(() => loadScenario(bad)).toThrow(/subscriptions\.0\.periods\.0/);
    const over = structuredClone(ISSUE_EXAMPLE) as any;
    over.subscriptions[0].refunds[0].amount_usd = "10.01";
    expect(() => loadScenario(over)).toThrow(/exceeds the remaining refundable/);
  });

  it("refuses a card period paid since 2026-09-17 that drew on the wallet too, and accepts one paid before", () => {
    const mixed = (paidAt: string) => {
      const scenario = structuredClone(ISSUE_EXAMPLE) as any;
      scenario.clock = "2026-10-01T00:00:00Z";
      scenario.subscriptions[0].refunds = [];
      Object.assign(scenario.subscriptions[0].periods[0], {
        paid_at: paidAt,
        funding: { balance_applied_coins: "40.00", card_charged_usd: "6.00" },
      });
      return scenario;
    };
    expect(() => loadScenario(mixed("2026-09-17T00:00:00Z"))).toThrow(
      /subscriptions\.0\.periods\.0\.funding: a card charge paid since 2026-09-17 draws nothing from the wallet/,
    );
    expect(() => loadScenario(mixed("2026-09-16T23:59:59Z"))).not.toThrow();
  });
});
