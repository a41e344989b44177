import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "@/emulator/server";
import { fixtureScenario, SECRET, SUB } from "./fixture";
import { startClient, type Client } from "./helpers";

let client: Client;

beforeAll(async () => {
  client = await startClient({ scenario: fixtureScenario(), rateLimits: "off" }, SECRET);
});
afterAll(() => client.close());

describe("admin API", () => {
  it("answers health and state", async () => {
    expect((await client.admin("/health")).body).toEqual({ status: "ok", clock: "2026-06-01T00:00:00Z" });
    const state = await client.admin("/state");
    expect(state.body.counts).toMatchObject({ subscriptions: 11, players: 5, cards: 5 });
    expect(state.body.breakdown.subscriptions_by_status).toMatchObject({
      active: 8,
      canceled: 1,
      past_due: 1,
      awaiting_authentication: 1,
    });
  });

  it("loads a scenario, refuses an invalid one with its path, and resets to the startup state", async () => {
    const bad = await client.admin("/scenario", {
      clock: "2026-06-01",
      games: [{ game_id: "g", name: "G", status: "live", secret: "s", fee_percent: "ten" }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error_code).toBe("SCENARIO_INVALID");
    expect(bad.body.error).toContain("games.0.fee_percent");
    const refundBeforeClock = fixtureScenario();
    refundBeforeClock.subscriptions![0]!.refunds![0]!.refunded_at = "2027-01-01T00:00:00Z";
    expect((await client.admin("/scenario", refundBeforeClock)).body.error).toContain("after the clock");
    const small = {
      clock: "2027-01-01T00:00:00Z",
      games: [{ game_id: "solo", name: "Solo", status: "live", secret: "gs_solo" }],
    };
    expect((await client.admin("/scenario", small)).status).toBe(200);
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`)).status).toBe(401);
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`, { secret: "gs_solo" })).status).toBe(404);
    await client.admin("/reset", {});
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`)).status).toBe(200);
    await client.admin("/reset", { empty: true });
    expect((await client.admin("/state")).body.counts.subscriptions).toBe(0);
    await client.admin("/reset", {});
  });

  it(
    "refuses next_charge_at on terminal and " + "pending_pcstore_authorization subscriptions, naming the field",
    async () => {
      // Spec: next_charge_at is "null on terminal rows and on pending_pcstore_authorization".
      for (const [index, status] of [
        [4, "canceled"],
        [4, "expired"],
        [3, "pending_pcstore_authorization"],
      ] as const) {
        const scenario = fixtureScenario();
        const sub = scenario.subscriptions![index]!;
        sub.status = status;
        if (status === "pending_pcstore_authorization") sub.periods = [];
        sub.next_charge_at = "2026-06-10T00:00:00Z";
        const call = await client.admin("/scenario", scenario);
        expect(call.status).toBe(400);
        expect(call.body.error_code).toBe("SCENARIO_INVALID");
        expect(call.body.error).toContain(`subscriptions.${index}.next_charge_at`);
        // null (or leaving it out) loads.
        sub.next_charge_at = null;
        expect((await client.admin("/scenario", scenario)).status).toBe(200);
        expect(
          (await client.get(`/api/subscriptions/${sub.subscription_id}`)).body.subscription.next_charge_at,
        ).toBeNull();
      }
      await client.admin("/reset", {});
    },
  );

  it("never hands out the same id twice across resets; loaded records keep their deterministic ids", async () => {
    const run = async () => {
      const loaded = (await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.ninetyNine}/attribution`)).body
        .periods;
      const receipt = (
        await client.post(`/api/subscriptions/${SUB.ninetyNine}/refund`, {
          client_request_id: "same-key",
          period_seq: 4,
        })
      ).body;
      await client.admin("/clock/advance", { to: "2026-06-11T00:00:00Z" });
      const renewed = (await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.ninetyNine}/attribution`))
        .body.periods[0];
      await client.admin("/reset", {});
      return { loaded, receipt, renewed };
    };
    const first = await run();
    const second = await run();
    // Made while running: refund transaction, refund key, processor reference, renewal transaction and period id.
    expect(second.receipt.transaction_id).not.toBe(first.receipt.transaction_id);
    expect(second.receipt.refund_key).not.toBe(first.receipt.refund_key);
    expect(second.receipt.processor_refund_reference).not.toBe(first.receipt.processor_refund_reference);
    expect(second.renewed.period_seq).toBe(5);
    expect(second.renewed.transaction_id).not.toBe(first.renewed.transaction_id);
    expect(second.renewed.period_id).not.toBe(first.renewed.period_id);
    expect(second.receipt.transaction_id).toMatch(/^rtx_[0-9a-z]+$/);
    expect(second.receipt.refund_key).toBe(`rfk_${second.receipt.transaction_id.slice(4)}`);
    // Loaded from the scenario: the same ids every time.
    expect(second.loaded).toEqual(first.loaded);
  });

  it("records a refund at a given time, by receipt or period row only", async () => {
    const added = await client.admin("/refunds", {
      subscription_id: SUB.ninetyNine,
      period_seq: 2,
      amount_usd: "2.00",
      refunded_at: "2026-04-20T00:00:00Z",
      receipt: false,
    });
    expect(added.status).toBe(201);
    const april = await client.get("/api/subscriptions/reporting/attribution", {
      query: { start: "2026-04-01", end: "2026-05-01" },
    });
    expect(april.body.totals.reversals_without_receipts).toBe(2);
    const tooEarly = await client.admin("/refunds", {
      subscription_id: SUB.ninetyNine,
      period_seq: 2,
      amount_usd: "1.00",
      refunded_at: "2026-03-01T00:00:00Z",
    });
    expect(tooEarly.status).toBe(400);
    await client.admin("/reset", {});
  });

  it("changes a game's status", async () => {
    await client.admin("/games/g1", { status: "suspended" }, "PATCH");
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`)).status).toBe(403);
    await client.admin("/reset", {});
  });
});

describe("admin API asked by a web page", () => {
  let running: RunningEmulator | null = null;
  afterAll(async () => {
    await running?.close();
  });

  it("refuses a request a browser sends for a page (it names the page's origin), on the loopback too", async () => {
    running = await startEmulator({ port: 0, host: "127.0.0.1", scenario: fixtureScenario() });
    const url = `http://127.0.0.1:${running.port}/__emulator/reset`;
    // A page elsewhere posting text/plain, which needs no preflight.
    const fromPage = await fetch(url, {
      method: "POST",
      headers: { origin: "https://elsewhere.example", "content-type": "text/plain" },
      body: "{}",
    });
    expect(fromPage.status).toBe(403);
    expect(((await fromPage.json()) as any).error_code).toBe("ADMIN_NOT_FROM_A_PAGE");
    const navigated = await fetch(`http://127.0.0.1:${running.port}/__emulator/health`, {
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(navigated.status).toBe(403);
    expect((await fetch(`http://127.0.0.1:${running.port}/__emulator/health`)).status).toBe(200);
  });
});

describe("admin API from another interface", () => {
  let open: RunningEmulator | null = null;
  const address = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal)?.address;

  afterAll(async () => {
    await open?.close();
  });

  it.skipIf(!address)("refuses callers that are not on the loopback interface", async () => {
    open = await startEmulator({ port: 0, host: "0.0.0.0", scenario: fixtureScenario() });
    const remote = await fetch(`http://${address}:${open.port}/__emulator/health`);
    expect(remote.status).toBe(403);
    expect(((await remote.json()) as any).error_code).toBe("ADMIN_LOOPBACK_ONLY");
    const local = await fetch(`http://127.0.0.1:${open.port}/__emulator/health`);
    expect(local.status).toBe(200);
    // The service routes themselves answer any caller.
    const api = await fetch(`http://${address}:${open.port}/api/subscriptions/${SUB.monthly}`, {
      headers: { "X-Game-Secret-Key": SECRET },
    });
    expect(api.status).toBe(200);
  });
});
