import { describe, expect, it } from "vitest";
import { SUB } from "./fixture";
import { expectError, type Client, setUpFixtureEmulator } from "./helpers";

let client: Client;
setUpFixtureEmulator((started) => {
  client = started;
});

const refund = (sub: string, body: unknown) => client.post(`/api/subscriptions/${sub}/refund`, body);
const balanceOf = async (email: string) =>
  (await client.get(`/api/player-balances/player/by-email/${encodeURIComponent(email)}`)).body.balances[0]
    .total_balance;

describe("refund idempotency", () => {
  it("replays a key with the stored receipt and moves nothing", async () => {
    const first = await refund(SUB.monthly, { client_request_id: "once-1", amount_usd: "2.00" });
    const again = await refund(SUB.monthly, { client_request_id: "once-1", amount_usd: "2.00" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, idempotent_replay: true });
    expect(await balanceOf("alice@example.test")).toBe("120.00");
    // A replay with different fields still answers the stored receipt.
    const different = await refund(SUB.monthly, { client_request_id: "once-1", amount_usd: "5.00" });
    expect(different.body.refunded_amount_usd).toBe("2.00");
  });

  it("replays a receipt recorded in the scenario", async () => {
    const call = await refund(SUB.monthly, { client_request_id: "rf-1" });
    expect(call.body).toMatchObject({
      idempotent_replay: true,
      period_seq: 1,
      refunded_amount_usd: "10.00",
      refunded_at: "2026-02-20T00:00:00Z",
      reason: "duplicate",
    });
  });

  it("answers a reduced body when the receipt was lost", async () => {
    const first = await refund(SUB.monthly, { client_request_id: "lost-1" });
    await client.admin("/receipts/lose", { subscription_id: SUB.monthly, client_request_id: "lost-1" });
    const again = await refund(SUB.monthly, { client_request_id: "lost-1" });
    expect(again.body).toEqual({
      status: "refunded",
      idempotent_replay: true,
      client_request_id: "lost-1",
      transaction_id: first.body.transaction_id,
      note: expect.stringContaining("already processed"),
    });
  });

  it("retries safely with the same key after a 5xx", async () => {
    await client.admin("/faults", { route: "/api/subscriptions/*/refund", fault: "502" });
    const failed = await refund(SUB.monthly, { client_request_id: "retry-1" });
    expect(failed.body).toMatchObject({ error_code: "PROCESSOR_ERROR", error_code_public: "PROCESSOR_ERROR" });
    expect(failed.status).toBe(502);
    const ok = await refund(SUB.monthly, { client_request_id: "retry-1" });
    expect(ok.body.idempotent_replay).toBe(false);
    expect((await refund(SUB.monthly, { client_request_id: "retry-1" })).body.idempotent_replay).toBe(true);
  });
});

describe("refund errors", () => {
  it("checks the key", async () => {
    expectError(await refund(SUB.monthly, {}), 400, "CLIENT_REQUEST_ID_REQUIRED");
    expectError(await refund(SUB.monthly, { client_request_id: 42 }), 400, "CLIENT_REQUEST_ID_INVALID");
    expectError(await refund(SUB.monthly, { client_request_id: "x".repeat(256) }), 400, "CLIENT_REQUEST_ID_TOO_LONG");
    expectError(await refund(SUB.monthly, { client_request_id: "SUB_abc" }), 400, "CLIENT_REQUEST_ID_RESERVED");
    expectError(await refund(SUB.monthly, { client_request_id: "sub_abc" }), 400, "CLIENT_REQUEST_ID_RESERVED");
    expect((await refund(SUB.monthly, { client_request_id: "x".repeat(255), amount_usd: "0.01" })).status).toBe(200);
  });

  it("refuses a body that is not a JSON object", async () => {
    expectError(
      await client.post(`/api/subscriptions/${SUB.monthly}/refund`, undefined, { raw: "[1,2]" }),
      400,
      "INVALID_BODY",
    );
    expectError(
      await client.post(`/api/subscriptions/${SUB.monthly}/refund`, undefined, { raw: "not json" }),
      400,
      "INVALID_BODY",
    );
  });

  it("checks period_seq and amount", async () => {
    for (const seq of [0, -1, 1.5, "1"]) {
      expectError(await refund(SUB.monthly, { client_request_id: "k", period_seq: seq }), 400, "INVALID_PERIOD_SEQ");
    }
    for (const amount of ["0", "-1", "1.234", 5, "ten"]) {
      expectError(await refund(SUB.monthly, { client_request_id: "k", amount_usd: amount }), 400, "INVALID_AMOUNT");
    }
    expectError(await refund(SUB.monthly, { client_request_id: "k", period_seq: 9 }), 404, "PERIOD_NOT_FOUND");
    const over = expectError(
      await refund(SUB.monthly, { client_request_id: "k", amount_usd: "10.01" }),
      400,
      "AMOUNT_EXCEEDS_REMAINING",
    );
    expect(over).toMatchObject({ remaining_refundable_usd: "10.00", already_refunded_usd: "0.00" });
    await refund(SUB.monthly, { client_request_id: "k-part", amount_usd: "4.00" });
    const over2 = expectError(
      await refund(SUB.monthly, { client_request_id: "k", amount_usd: "6.01" }),
      400,
      "AMOUNT_EXCEEDS_REMAINING",
    );
    expect(over2).toMatchObject({ remaining_refundable_usd: "6.00", already_refunded_usd: "4.00" });
  });

  it("refuses periods that cannot be refunded", async () => {
    expectError(await refund(SUB.neverBilled, { client_request_id: "k" }), 409, "NO_PAID_PERIOD");
    expect(
      expectError(await refund(SUB.pastDue, { client_request_id: "k", period_seq: 3 }), 409, "PERIOD_NOT_REFUNDABLE")
        .period_status,
    ).toBe("pending");
    expect(
      expectError(await refund(SUB.monthly, { client_request_id: "k", period_seq: 1 }), 409, "ALREADY_REFUNDED"),
    ).toMatchObject({
      refunded_amount_usd: "10.00",
      amount_usd: "10.00",
    });
    expectError(await refund(SUB.brokenRecords, { client_request_id: "k", period_seq: 1 }), 409, "MINT_ORDER_MISSING");
    expectError(
      await refund(SUB.brokenRecords, { client_request_id: "k", period_seq: 2 }),
      409,
      "NO_PAYMENT_REFERENCE",
    );
    expectError(await refund("SUB_1767225600_ZZZZ9999", { client_request_id: "k" }), 404, "SUBSCRIPTION_NOT_FOUND");
    expectError(
      await refund(SUB.monthly, { client_request_id: "k", reason: "r".repeat(501) }),
      400,
      "INVALID_FIELD_VALUE",
    );
  });

  it("answers FLOW_PAUSED during a maintenance pause", async () => {
    await client.admin("/pause", { paused: true });
    expectError(await refund(SUB.monthly, { client_request_id: "k" }), 503, "FLOW_PAUSED");
  });

  it.each([
    ["500", undefined, "INTERNAL_ERROR", 500],
    // The refund's own table: "503 | service_unavailable, FLOW_PAUSED".
    ["503", "service_unavailable", "service_unavailable", 503],
  ])("passes an injected %s (error_code %s) as %s", async (fault, errorCode, code, status) => {
    await client.admin("/faults", { route: "/api/subscriptions/*/refund", fault, error_code: errorCode });
    expectError(await refund(SUB.monthly, { client_request_id: "k" }), status, code);
  });

  it.each(["REFUND_LOOKUP_FAILED", "REFUND_MISMATCH"])("passes an injected 502 %s", async (code) => {
    await client.admin("/faults", { route: "/api/subscriptions/*/refund", fault: "502", error_code: code });
    expectError(await refund(SUB.monthly, { client_request_id: "k" }), 502, code);
  });

  it("passes an injected 503 PROCESSOR_NOT_CONFIGURED with its public code", async () => {
    await client.admin("/faults", {
      route: "/api/subscriptions/*/refund",
      fault: "503",
      error_code: "PROCESSOR_NOT_CONFIGURED",
      error_code_public: "PROCESSOR_NOT_CONFIGURED",
    });
    const body = expectError(await refund(SUB.monthly, { client_request_id: "k" }), 503, "PROCESSOR_NOT_CONFIGURED");
    expect(body.error_code_public).toBe("PROCESSOR_NOT_CONFIGURED");
  });

  it("limits refund calls to 20 a minute per subscription with 429 RATE_LIMITED and retry_after", async () => {
    await client.admin("/rate-limits", { mode: "documented" });
    try {
      for (let i = 0; i < 20; i++) {
        const call = await refund(SUB.monthly, { client_request_id: `rl-${i}`, amount_usd: "0.01" });
        expect(call.status).toBe(200);
      }
      const limited = expectError(
        await refund(SUB.monthly, { client_request_id: "rl-21", amount_usd: "0.01" }),
        429,
        "RATE_LIMITED",
      );
      expect(limited.retry_after).toBeGreaterThanOrEqual(1);
      expect(limited.retry_after).toBeLessThanOrEqual(60);
      const again = await refund(SUB.monthly, { client_request_id: "rl-22" });
      expect(Number(again.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // Another subscription has its own budget.
      expect((await refund(SUB.mixed, { client_request_id: "rl-other" })).status).toBe(200);
    } finally {
      await client.admin("/rate-limits", { mode: "off" });
    }
  });
});
