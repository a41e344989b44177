import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { attributionReportBody, periodReportBody, refundReceiptBody, subscriptionBody } from "./__fixtures__/bodies";
import { computeRetryDelay } from "./client";
import { describeServiceFailure, needsManualAttention, RATE_LIMIT_PAUSE, ServiceError } from "./errors";
import { createPacer } from "./pacing";
import { SECRET, EMAIL, json, makeClient, networkError, receiptOk } from "./__fixtures__/scripted-client";

describe("retry policy: reads", () => {
  it("retries 5xx, network errors and unreadable bodies, then succeeds", async () => {
    const { client, calls, sleeps } = makeClient(
      [
        json(503, { status: "service_unavailable" }),
        networkError(),
        new Response("<html>502</html>", { status: 502 }),
        new Response('{"status":"succ', { status: 200 }),
        json(200, { status: "success", subscription: subscriptionBody() }),
      ],
      { maxRetries: 4 },
    );
    const result = await client.getSubscription("SUB_1767225600_ab12cd34");
    expect(result.subscription.period_seq).toBe(3);
    expect(calls).toHaveLength(5);
    // full jitter at random 0.5 over 250, 500, 1000, 2000
    expect(sleeps).toEqual([125, 250, 500, 1000]);
    expect(client.stats()).toMatchObject({ requests: 1, attempts: 5, retries: 4, networkErrors: 1, rateLimited: 0 });
  });

  it("honours retry_after on a 429 and counts it", async () => {
    const { client, sleeps } = makeClient([
      json(429, { error: "rate_limit_exceeded", retry_after: 7 }, { "Retry-After": "7" }),
      json(429, { error: "rate_limit_exceeded" }, { "Retry-After": "2" }),
      json(200, attributionReportBody()),
    ]);
    await client.getAttributionReport({ start: "2026-03-01", end: "2026-04-01" });
    expect(sleeps).toEqual([7_000 + 125, 2_000 + 125]);
    expect(client.stats().rateLimited).toBe(2);
  });

  it("pauses the pacer's buckets for the retry_after so every caller backs off", async () => {
    let now = 1_000_000;
    const pacer = createPacer({
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    });
    const { client } = makeClient(
      [json(429, { error: "rate_limit_exceeded", retry_after: 30 }), json(200, attributionReportBody())],
      {
        pacing: pacer,
        now: () => now,
        sleep: async () => undefined,
      },
    );
    await client.getAttributionReport({ start: "2026-03-01", end: "2026-04-01" });
    expect(pacer.stats().pauses).toBe(1);
    // the second attempt waited in the pacer until the pause ended
    expect(now).toBe(1_000_000 + 30_000);
  });

  it("gives up at once when retry_after is longer than it will wait, keeping the wait on the error", async () => {
    let now = 0;
    const pacer = createPacer({
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    });
    const { client, calls } = makeClient(
      [json(429, { error: "rate_limit_exceeded", retry_after: 600 }), json(200, attributionReportBody())],
      { pacing: pacer, maxRetryAfterMs: 60_000, now: () => now },
    );
    const error = await client.getAttributionReport({ start: "2026-03-01", end: "2026-04-01" }).catch((e) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.retryAfterMs).toBe(600_000);
    expect(calls).toHaveLength(1);
    // The buckets stay closed for the whole ten minutes: this client's next call is refused at once, unsent, with
    // what is left of the wait, rather than held for ten minutes or sent to meet the 429 again.
    now += 1_000;
    const paused = await client.getAttributionReport({ start: "2026-03-01", end: "2026-04-01" }).catch((e) => e);
    expect(paused).toMatchObject({ status: 429, code: RATE_LIMIT_PAUSE, retryAfterMs: 599_000 });
    expect(paused.message).toMatch(/^GET .*: not sent: an earlier 429 paused this game's calls for 599 s more$/);
    expect(describeServiceFailure(paused)).toMatch(/^the service is rate limiting this game\. .*RATE_LIMIT_PAUSE/);
    expect(calls).toHaveLength(1);
    expect(now).toBe(1_000);
    // A client riding out outages (a pull) shares the pacer and waits the pause out, then calls.
    const pull = makeClient([json(200, attributionReportBody())], {
      pacing: pacer,
      retryBudgetMs: 15 * 60_000,
      now: () => now,
    });
    await pull.client.getAttributionReport({ start: "2026-03-01", end: "2026-04-01" });
    expect(now).toBe(600_000);
    expect(pull.calls).toHaveLength(1);
  });

  it("stops after maxRetries and reports how many attempts were made", async () => {
    const { client, calls, sleeps } = makeClient([networkError(), networkError(), networkError(), networkError()], {
      random: () => 0.999,
    });
    const error: ServiceError = await client.getPeriodReport(9001).catch((e) => e);
    expect(error.kind).toBe("network");
    expect(error.code).toBe("ECONNRESET");
    expect(error.attempts).toBe(4);
    expect(error.message).toBe("GET /api/subscriptions/reporting/periods/9001: network error (ECONNRESET)");
    expect(calls).toHaveLength(4);
    expect(sleeps).toEqual([249, 499, 999]);
  });

  it("does not retry 4xx answers or schema mismatches", async () => {
    const { client, calls } = makeClient([
      json(404, { error: "Not found", error_code: "SUBSCRIPTION_NOT_FOUND", error_id: "e1" }),
      json(200, { status: "success", subscription: { ...subscriptionBody(), amount_usd: EMAIL } }),
    ]);
    const notFound: ServiceError = await client.getSubscription("SUB_1767225600_ab12cd34").catch((e) => e);
    expect(notFound.code).toBe("SUBSCRIPTION_NOT_FOUND");
    const mismatch: ServiceError = await client.getSubscription("SUB_1767225600_ab12cd34").catch((e) => e);
    expect(mismatch.kind).toBe("invalid_response");
    expect(mismatch.issues).toEqual(["subscription.amount_usd: invalid_format"]);
    expect(mismatch.message).toContain("subscription.amount_usd");
    expect(mismatch.message).not.toContain(EMAIL);
    expect(calls).toHaveLength(2);
  });

  it("times out an attempt that hangs, retries it, and names the timeout", async () => {
    const { client, calls } = makeClient(["hang", "hang"], { timeoutMs: 10, maxRetries: 1 });
    const error: ServiceError = await client.getPeriodReport(9001).catch((e) => e);
    expect(error.kind).toBe("timeout");
    expect(calls).toHaveLength(2);
    expect(client.stats().timeouts).toBe(2);
  });

  it("stops on the caller's abort without retrying", async () => {
    const controller = new AbortController();
    const { client, calls } = makeClient(["hang"], { timeoutMs: 5_000 });
    const pending = client.getPeriodReport(9001, {}, { signal: controller.signal });
    while (calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error("job cancelled"));
    await expect(pending).rejects.toThrow("job cancelled");
    expect(calls).toHaveLength(1);
    expect(client.stats().timeouts).toBe(0);
  });

  it("sends nothing when the caller has already aborted", async () => {
    const { client, calls } = makeClient([json(200, periodReportBody())]);
    await expect(client.getPeriodReport(9001, {}, { signal: AbortSignal.abort(new Error("gone")) })).rejects.toThrow(
      "gone",
    );
    expect(calls).toHaveLength(0);
  });

  it("never puts the secret in an error", async () => {
    const { client } = makeClient([json(401, { error: "Invalid game secret", error_code: "INVALID_GAME_SECRET" })]);
    const error: ServiceError = await client.listPlayerCards(EMAIL).catch((e) => e);
    expect(error.status).toBe(401);
    expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.toContain(SECRET);
    expect(error.message).not.toContain("jane");
  });
});

describe("retry policy: writes", () => {
  const sub = "SUB_1767225600_ab12cd34";

  it("sends cancel, amount and payment-method changes once, whatever the failure", async () => {
    for (const failure of [
      () => json(503, { status: "service_unavailable" }),
      () => json(500, { error_code: "INTERNAL_ERROR" }),
      () => json(429, { error: "rate_limit_exceeded", retry_after: 1 }),
      networkError,
      () => "hang" as const,
    ]) {
      const { client, calls, sleeps } = makeClient([failure(), failure(), failure()], { timeoutMs: 10 });
      await expect(client.cancelSubscription(sub)).rejects.toBeInstanceOf(ServiceError);
      await expect(client.changeSubscriptionAmount(sub, { amountUsd: "5.00" })).rejects.toBeInstanceOf(ServiceError);
      await expect(client.changePaymentMethod(sub, { walletOnly: true })).rejects.toBeInstanceOf(ServiceError);
      expect(calls).toHaveLength(3);
      expect(sleeps).toEqual([]);
    }
  });

  it(
    "retries a refund with the same client_request_id through PROCESSOR_ERROR, INTERNAL_ERROR, FLOW_PAUSED and " +
      "service_unavailable",
    async () => {
      const { client, calls } = makeClient(
        [
          json(502, { error: "Processor failed", error_code: "PROCESSOR_ERROR" }),
          json(500, { error: "Internal", error_code: "INTERNAL_ERROR" }),
          json(503, { error: "Paused", error_code: "FLOW_PAUSED" }),
          json(503, { status: "service_unavailable" }),
          networkError(),
          json(200, { ...refundReceiptBody(), idempotent_replay: true }),
        ],
        { maxRetries: 5 },
      );
      const result = await client.refundSubscription(sub, { clientRequestId: "refund-0b6f", amountUsd: "3.33" });
      expect(result.outcome).toBe("refunded");
      if (result.outcome === "refunded") expect(result.receipt.idempotent_replay).toBe(true);
      expect(calls).toHaveLength(6);
      for (const call of calls) expect(call.body).toEqual({ client_request_id: "refund-0b6f", amount_usd: "3.33" });
    },
  );

  it("never retries REFUND_LOOKUP_FAILED or REFUND_MISMATCH: manual attention", async () => {
    for (const code of ["REFUND_LOOKUP_FAILED", "REFUND_MISMATCH"]) {
      const { client, calls } = makeClient([json(502, { error: "Check manually", error_code: code }), receiptOk()]);
      const error = await client.refundSubscription(sub, { clientRequestId: "refund-1" }).catch((e) => e);
      expect(error.code).toBe(code);
      expect(needsManualAttention(error)).toBe(true);
      expect(calls).toHaveLength(1);
    }
  });

  it("retries a refund's 429 RATE_LIMITED after its retry_after", async () => {
    const { client, sleeps } = makeClient([
      json(429, { error: "Too many refunds", error_code: "RATE_LIMITED" }, { "Retry-After": "3" }),
      receiptOk(),
    ]);
    await client.refundSubscription(sub, { clientRequestId: "refund-1" });
    expect(sleeps).toEqual([3_000 + 125]);
  });

  it("does not retry refund refusals and keeps their body", async () => {
    const { client, calls } = makeClient([
      json(400, {
        error: "Amount exceeds remaining",
        error_code: "AMOUNT_EXCEEDS_REMAINING",
        remaining_refundable_usd: "6.66",
        already_refunded_usd: "3.33",
      }),
      json(409, {
        error: "Already refunded",
        error_code: "ALREADY_REFUNDED",
        refunded_amount_usd: "9.99",
        amount_usd: "9.99",
      }),
    ]);
    const over: ServiceError = await client
      .refundSubscription(sub, { clientRequestId: "r1", amountUsd: "9.00" })
      .catch((e) => e);
    expect(over.code).toBe("AMOUNT_EXCEEDS_REMAINING");
    expect(over.body?.remaining_refundable_usd).toBe("6.66");
    const again: ServiceError = await client.refundSubscription(sub, { clientRequestId: "r2" }).catch((e) => e);
    expect(again.code).toBe("ALREADY_REFUNDED");
    expect(calls).toHaveLength(2);
  });

  it("reads the reduced 'already processed' replay, as a 200 or a 409", async () => {
    const { client } = makeClient([
      json(200, { transaction_id: "txn_r_551", note: "Refund already processed" }),
      json(409, { transaction_id: "txn_r_551", order_id: "ord_1", message: "Duplicate client_request_id" }),
      json(409, { ...refundReceiptBody(), idempotent_replay: true }),
    ]);
    const first = await client.refundSubscription(sub, { clientRequestId: "refund-0b6f" });
    expect(first).toEqual({
      outcome: "already_processed",
      replay: { transaction_id: "txn_r_551", note: "Refund already processed" },
    });
    const second = await client.refundSubscription(sub, { clientRequestId: "refund-0b6f" });
    expect(second.outcome).toBe("already_processed");
    const third = await client.refundSubscription(sub, { clientRequestId: "refund-0b6f" });
    expect(third.outcome).toBe("refunded");
  });

  it("treats a broken receipt as a schema mismatch, not as a replay", async () => {
    const { client } = makeClient([json(200, { ...refundReceiptBody(), refunded_amount_usd: 4 })]);
    const error: ServiceError = await client.refundSubscription(sub, { clientRequestId: "refund-1" }).catch((e) => e);
    expect(error.kind).toBe("invalid_response");
    expect(error.issues).toEqual(["refunded_amount_usd: invalid_type"]);
  });
});

describe("computeRetryDelay", () => {
  const backoff = { baseMs: 250, maxMs: 15_000 };

  it("stays within full-jitter bounds that double and then cap", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retry, r) => {
          const delay = computeRetryDelay(retry, null, () => r, backoff);
          const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** (retry - 1));
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(ceiling);
        },
      ),
    );
  });

  it("waits at least retry_after, plus less than one base step", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 120_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (after, r) => {
          const delay = computeRetryDelay(4, after, () => r, backoff);
          expect(delay).toBeGreaterThanOrEqual(after);
          expect(delay).toBeLessThan(after + backoff.baseMs);
        },
      ),
    );
  });

  it("clamps a random source that misbehaves", () => {
    expect(computeRetryDelay(1, null, () => 7, backoff)).toBe(250);
    expect(computeRetryDelay(1, null, () => -1, backoff)).toBe(0);
  });
});
