import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fixtureScenario, SECRET, SUB } from "./fixture";
import { expectError, sleep, startClient, type Client } from "./helpers";

let client: Client;

beforeAll(async () => {
  client = await startClient({ scenario: fixtureScenario(), rateLimits: "off" }, SECRET);
});
afterAll(() => client.close());
beforeEach(async () => {
  await client.admin("/reset", {});
  await client.admin("/rate-limits", { mode: "off" });
});

const window = { start: "2026-05-01", end: "2026-06-01" };

describe("documented rate limits", () => {
  it(
    "limits aggregate reports to 60 a minute per game with " + "rate_limit_exceeded, retry_after and Retry-After",
    async () => {
      // A 6-second minute: the 60 calls fit in it with room to spare on a busy machine.
      await client.admin("/rate-limits", { mode: "scaled:10" });
      for (let i = 0; i < 60; i++)
        expect((await client.get("/api/subscriptions/reporting/attribution", { query: window })).status).toBe(200);
      const limited = await client.get("/api/subscriptions/reporting/attribution", { query: window });
      const body = expectError(limited, 429, "rate_limit_exceeded");
      expect(body.retry_after).toBeGreaterThan(0);
      expect(body.retry_after).toBeLessThanOrEqual(6);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(Math.ceil(body.retry_after));
      // Detail routes have their own budget.
      expect((await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.monthly}/attribution`)).status).toBe(
        200,
      );
      await sleep(body.retry_after * 1000 + 20);
      expect((await client.get("/api/subscriptions/reporting/attribution", { query: window })).status).toBe(200);
    },
  );

  it("answers whole seconds in documented mode", async () => {
    await client.admin("/rate-limits", { mode: "documented" });
    const started = performance.now();
    for (let i = 0; i < 60; i++) await client.get("/api/subscriptions/reporting/attribution", { query: window });
    const body = expectError(
      await client.get("/api/subscriptions/reporting/attribution", { query: window }),
      429,
      "rate_limit_exceeded",
    );
    expect(Number.isInteger(body.retry_after)).toBe(true);
    // The minute's first call leaves the window 60 s after it was made: what is left of that minute, however long
    // the 60 calls took on this machine (a busy one takes seconds).
    const elapsed = (performance.now() - started) / 1000;
    expect(body.retry_after).toBeGreaterThanOrEqual(Math.floor(60 - elapsed));
    expect(body.retry_after).toBeLessThanOrEqual(60);
  });

  it("limits detail reports to 120 a minute per subscription, counting both detail routes", async () => {
    // A 15-second minute: the 120 calls are made well inside it.
    await client.admin("/rate-limits", { mode: "scaled:4" });
    const periodId = (await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.monthly}/attribution`)).body
      .periods[0].period_id;
    for (let i = 0; i < 119; i++) {
      const call =
        i % 2 === 0
          ? await client.get(`/api/subscriptions/reporting/periods/${periodId}`)
          : await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.monthly}/attribution`);
      expect(call.status).toBe(200);
    }
    expectError(await client.get(`/api/subscriptions/reporting/periods/${periodId}`), 429, "rate_limit_exceeded");
    expect((await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.ninetyNine}/attribution`)).status).toBe(
      200,
    );
  });

  it("limits balance reads to 1500 a minute", async () => {
    // A 30-second minute: the 1,500 calls are made well inside it.
    await client.admin("/rate-limits", { mode: "scaled:2" });
    const batch = async (n: number) => {
      const calls = Array.from({ length: n }, () =>
        client.get("/api/player-balances/player/by-email/alice%40example.test"),
      );
      return (await Promise.all(calls)).map((c) => c.status);
    };
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push(...(await batch(100)));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const over = await client.get("/api/player-balances/player/by-email/alice%40example.test");
    expect(expectError(over, 429, "RATE_LIMITED").retry_after).toBeGreaterThan(0);
  });

  it("imposes nothing with rate limits off", async () => {
    for (let i = 0; i < 25; i++) {
      expect(
        (
          await client.post(`/api/subscriptions/${SUB.monthly}/refund`, {
            client_request_id: `off-${i}`,
            amount_usd: "0.01",
          })
        ).status,
      ).toBe(200);
    }
  });
});

describe("injected faults", () => {
  it("answers the next N calls of a route with 429 and the given retry_after", async () => {
    const fault = await client.admin("/faults", {
      route: "/api/subscriptions/*",
      method: "GET",
      fault: "429",
      count: 2,
      retry_after: 7,
    });
    expect(fault.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const call = await client.get(`/api/subscriptions/${SUB.monthly}`);
      expect(expectError(call, 429, "RATE_LIMITED").retry_after).toBe(7);
      expect(call.headers.get("retry-after")).toBe("7");
    }
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`)).status).toBe(200);
    expect((await client.admin("/faults")).body.faults).toEqual([]);
  });

  it("matches sandbox paths, method filters and ** patterns", async () => {
    await client.admin("/faults", { route: "/api/subscriptions/reporting/**", fault: "503", count: 1 });
    // The spec's circuit breaker: "503 | body {status: service_unavailable}, no error codes".
    const broken = await client.get("/sandbox/api/subscriptions/reporting/attribution", { query: window });
    expect({ status: broken.status, body: broken.body }).toEqual({
      status: 503,
      body: { status: "service_unavailable" },
    });
    await client.admin("/faults", { route: "/api/subscriptions/*/cancel", method: "POST", fault: "500" });
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`)).status).toBe(200);
    expectError(await client.post(`/api/subscriptions/${SUB.monthly}/cancel`, {}), 500, "INTERNAL_ERROR");
  });

  it("uses rate_limit_exceeded for injected 429s on reporting routes", async () => {
    await client.admin("/faults", {
      route: "/api/subscriptions/reporting/attribution",
      fault: "429",
      retry_after: 0.25,
    });
    const body = expectError(
      await client.get("/api/subscriptions/reporting/attribution", { query: window }),
      429,
      "rate_limit_exceeded",
    );
    expect(body.retry_after).toBe(0.25);
  });

  it("hangs past the caller's timeout without touching state", async () => {
    await client.admin("/faults", { route: "/api/subscriptions/*/refund", fault: "hang", hang_ms: 2000 });
    // The caller gives up first (its timeout, not an answer, ends the call).
    await expect(
      fetch(`${client.url}/api/subscriptions/${SUB.monthly}/refund`, {
        method: "POST",
        headers: { "X-Game-Secret-Key": SECRET, "content-type": "application/json" },
        body: JSON.stringify({ client_request_id: "hang-1" }),
        signal: AbortSignal.timeout(150),
      }),
    ).rejects.toThrow(/aborted|timeout/i);
    const retry = await client.post(`/api/subscriptions/${SUB.monthly}/refund`, { client_request_id: "hang-1" });
    expect(retry.body.idempotent_replay).toBe(false);
  });

  it("processes the call but drops the response", async () => {
    await client.admin("/faults", { route: "/api/subscriptions/*/refund", fault: "drop" });
    await expect(
      client.post(`/api/subscriptions/${SUB.monthly}/refund`, { client_request_id: "drop-1", amount_usd: "1.00" }),
    ).rejects.toThrow();
    // The refund happened: the retry with the same key gets the stored receipt.
    const retry = await client.post(`/api/subscriptions/${SUB.monthly}/refund`, {
      client_request_id: "drop-1",
      amount_usd: "1.00",
    });
    expect(retry.body).toMatchObject({ idempotent_replay: true, refunded_amount_usd: "1.00" });
  });

  it("processes the call at once and holds the answer back", async () => {
    await client.admin("/faults", { route: "/api/subscriptions/*/refund", fault: "delay", hang_ms: 60_000 });
    const caller = new AbortController();
    const held = fetch(`${client.url}/api/subscriptions/${SUB.monthly}/refund`, {
      method: "POST",
      headers: { "X-Game-Secret-Key": SECRET, "content-type": "application/json" },
      body: JSON.stringify({ client_request_id: "delay-1", amount_usd: "1.00" }),
      signal: caller.signal,
    });
    held.catch(() => {});
    const receipts = () =>
      [...client.emulator.ledger().receipts.values()].filter((r) => r.body.client_request_id === "delay-1");
    while (receipts().length === 0) await sleep(10);
    // The refund is made while its caller still waits: a repeat of the key gets the stored receipt.
    const retry = await client.post(`/api/subscriptions/${SUB.monthly}/refund`, {
      client_request_id: "delay-1",
      amount_usd: "1.00",
    });
    expect(retry.body).toMatchObject({ idempotent_replay: true, refunded_amount_usd: "1.00" });
    caller.abort();
    await expect(held).rejects.toThrow();
  });

  it("lists and removes faults", async () => {
    const a = await client.admin("/faults", { route: "/api/x", fault: "500", count: 3 });
    await client.admin("/faults", { route: "/api/y", fault: "502" });
    expect((await client.admin("/faults")).body.faults.map((f: any) => [f.route, f.remaining])).toEqual([
      ["/api/x", 3],
      ["/api/y", 1],
    ]);
    await client.admin(`/faults/${a.body.id}`, undefined, "DELETE");
    expect((await client.admin("/faults")).body.faults).toHaveLength(1);
    await client.admin("/faults", undefined, "DELETE");
    expect((await client.admin("/faults")).body.faults).toHaveLength(0);
    expect((await client.admin("/faults", { route: "/x", fault: "418" })).status).toBe(400);
  });
});
