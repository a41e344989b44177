import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { actAs } from "../support/next-request";
import {
  form,
  GAME_ID,
  periodIdOf,
  PLAYER,
  refundEvents,
  type RefundTestContext,
  startRefundTest,
  SUBS,
} from "./setup";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

const { previewRefundAction, refundAction, resolveRefundAttemptAction, retryRefundAttemptAction } = await import(
  "@/app/(desk)/subscriptions/actions"
);
const { reconcilePendingRefunds } = await import("@/lib/refunds/reconcile");
const { insertRefundAttempt, findRefundAttempt } = await import("@/db/queries/refunds");
const { refundIntentKey } = await import("@/lib/refunds/intent");

let c: RefundTestContext;
beforeAll(async () => {
  c = await startRefundTest();
});
afterAll(async () => c?.close());

type Ok = { ok: true; message?: string; data?: any };
type Fail = { ok: false; code: string; message: string; fieldErrors?: Record<string, string> };

/** The form the refund screen submits after the review step. */
function refundForm(
  subscriptionId: string,
  seq: number,
  amountUsd: string,
  remainingBeforeUsd: string,
  reason = "Player asked",
) {
  return form({
    subscriptionId,
    periodId: periodIdOf(subscriptionId, seq),
    periodSeq: seq,
    amountUsd,
    remainingBeforeUsd,
    reason,
    playerEmail: PLAYER.email,
  });
}

async function attemptsOf(subscriptionId: string) {
  return c.t.db
    .selectFrom("refund_attempt")
    .selectAll()
    .where("subscription_id", "=", subscriptionId)
    .orderBy("created_at")
    .execute();
}

async function auditOf(subscriptionId: string) {
  return c.t.db
    .selectFrom("audit_log")
    .select(["action", "outcome", "idempotency_key", "actor_email", "game_id", "detail"])
    .where("target", "like", `${subscriptionId}%`)
    .orderBy("id")
    .execute();
}

describe("refunds against the emulator", () => {
  it(
    "[support] previews a partial refund: remaining, " + "coins, attribution lost and the window of the refund",
    async () => {
      actAs(c.sessions.support);
      const result = (await previewRefundAction(
        form({ subscriptionId: SUBS.basic, periodId: periodIdOf(SUBS.basic, 3), mode: "partial", amountUsd: "2.50" }),
      )) as Ok;
      expect(result.ok).toBe(true);
      const impact = result.data;
      expect(impact).toMatchObject({
        remainingUsd: "10.00",
        amountUsd: "2.50",
        isFull: false,
        refundable: true,
        fundingShape: "card",
        cardRefundUsd: "0.00",
        balanceDeltaCoins: "25.00",
        // 10.00 at 10% fee: partner 9.00, bob 20% of 9.00 = 1.80; a quarter of it is 0.45
        revenueShare: {
          recipientPlayerId: 2,
          originalAttributedUsd: "1.80",
          attributionLostUsd: "0.45",
          netAfterUsd: "1.35",
        },
        partnerRevenueReversedUsd: "2.25",
        cardFeeChargedToPartnerUsd: "0.25",
        recipientAlreadyPaid: false,
      });
      expect(impact.reportingWindow.month).toMatch(/^\d{4}-\d{2}$/);
    },
  );

  it("[support] refunds part of a period once; the receipt is stored in full and every step is audited", async () => {
    actAs(c.sessions.support);
    const result = (await refundAction(refundForm(SUBS.basic, 3, "2.50", "10.00"))) as Ok;
    expect(result).toMatchObject({ ok: true, data: { state: "succeeded" } });
    const [attempt] = await attemptsOf(SUBS.basic);
    expect(attempt).toMatchObject({ status: "succeeded", amount_usd: "2.50", calls: 1, idempotent_replay: false });
    expect(attempt?.client_request_id).toMatch(/^pd-refund-/);
    expect(attempt?.receipt).toMatchObject({
      status: "refunded",
      client_request_id: attempt?.client_request_id,
      refunded_amount_usd: "2.50",
      remaining_refundable_usd: "7.50",
      funding_shape: "card",
      balance_delta_coins: "25.00",
      new_balance: "125.00",
      partner_revenue_reversed_usd: "2.25",
      card_fee_charged_to_partner_usd: "0.25",
      revenue_share_attribution: {
        recipient_player_id: 2,
        original_attributed_amount_usd: "1.80",
        refunded_attributed_amount_usd: "0.45",
      },
    });
    expect(refundEvents(c.emulator, SUBS.basic, 3)).toHaveLength(1);
    const audit = await auditOf(SUBS.basic);
    expect(audit.map((a) => [a.action, a.outcome])).toEqual([
      ["refund.request", "pending"],
      ["refund.call", "succeeded"],
    ]);
    expect(audit.every((a) => a.idempotency_key === attempt?.client_request_id && a.game_id === GAME_ID)).toBe(true);
    // "each reversal is reported in the window of the refund itself": that window's snapshots are marked stale.
    const marks = await c.t.db.selectFrom("snapshot_stale_mark").select(["game_id", "instant", "detail"]).execute();
    const mark = marks.find((m) => (m.detail as Record<string, unknown>).refundAttemptId === attempt?.id);
    expect(mark).toMatchObject({
      game_id: GAME_ID,
      detail: { subscriptionId: SUBS.basic, periodId: periodIdOf(SUBS.basic, 3) },
    });
    expect(mark?.instant.toISOString()).toBe(attempt?.refunded_at?.toISOString());

    // Submitting the same form again (a double click, a resubmitted page) returns the same attempt, no second refund.
    const again = (await refundAction(refundForm(SUBS.basic, 3, "2.50", "10.00"))) as Ok;
    expect(again.data).toEqual({ attemptId: attempt?.id, state: "succeeded" });
    expect(refundEvents(c.emulator, SUBS.basic, 3)).toHaveLength(1);
    expect(await attemptsOf(SUBS.basic)).toHaveLength(1);
  });

  it(
    "a response dropped after the service processed it is " +
      "retried with the same key: one refund, idempotent_replay",
    async () => {
      actAs(c.sessions.support);
      await c.admin("/faults", { route: `/api/subscriptions/${SUBS.dropped}/refund`, fault: "drop", count: 1 });
      const result = (await refundAction(refundForm(SUBS.dropped, 2, "4.00", "10.00"))) as Ok;
      expect(result).toMatchObject({ ok: true, data: { state: "succeeded" } });
      expect(result.message).toMatch(/nothing was refunded twice/);
      const [attempt] = await attemptsOf(SUBS.dropped);
      expect(attempt).toMatchObject({ status: "succeeded", idempotent_replay: true });
      expect(attempt?.receipt).toMatchObject({
        idempotent_replay: true,
        refunded_amount_usd: "4.00",
        client_request_id: attempt?.client_request_id,
      });
      expect(refundEvents(c.emulator, SUBS.dropped, 2)).toHaveLength(1);
      const calls = await auditOf(SUBS.dropped);
      expect(calls.find((a) => a.action === "refund.call")?.detail).toMatchObject({
        http_attempts: 2,
        idempotent_replay: true,
      });
    },
  );

  it("ten concurrent submissions of the same intent make one attempt and one refund", async () => {
    actAs(c.sessions.support);
    const results = (await Promise.all(
      Array.from({ length: 10 }, () => refundAction(refundForm(SUBS.concurrent, 3, "5.00", "20.00"))),
    )) as Ok[];
    const ids = new Set(results.map((r) => r.data?.attemptId));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(ids.size).toBe(1);
    expect(results.map((r) => r.data?.state)).toEqual(Array(10).fill("succeeded"));
    expect(await attemptsOf(SUBS.concurrent)).toHaveLength(1);
    expect(refundEvents(c.emulator, SUBS.concurrent, 3)).toHaveLength(1);
    const calls = (await auditOf(SUBS.concurrent)).filter((a) => a.action === "refund.call");
    expect(calls).toHaveLength(1);
  });

  it("a pending attempt left by a crash before the call is completed by the reconciler", async () => {
    const attempt = await insertRefundAttempt(c.t.db, {
      gameId: GAME_ID,
      subscriptionId: SUBS.crash,
      periodSeq: 1,
      periodId: periodIdOf(SUBS.crash, 1),
      playerEmail: PLAYER.email,
      amountUsd: "30.00",
      remainingBeforeUsd: "30.00",
      isFull: true,
      reason: "crash test",
      clientRequestId: "pd-refund-crash-before-call",
      intentKey: refundIntentKey({
        gameId: GAME_ID,
        subscriptionId: SUBS.crash,
        periodSeq: 1,
        amountUsd: "30.00",
        remainingBeforeUsd: "30.00",
      }),
      actor: null,
      impact: {},
    });
    expect(attempt).not.toBeNull();
    // Fresh attempts belong to the request that is making them; the sweep only takes idle ones.
    expect((await reconcilePendingRefunds(c.t.db)).outcomes.find((o) => o.id === attempt?.id)).toBeUndefined();
    await c.t.db
      .updateTable("refund_attempt")
      .set({ created_at: new Date(Date.now() - 5 * 60_000) } as never)
      .where("id", "=", attempt!.id)
      .execute();
    const summary = await reconcilePendingRefunds(c.t.db);
    expect(summary.outcomes).toContainEqual({ id: attempt!.id, state: "succeeded" });
    const after = await findRefundAttempt(c.t.db, GAME_ID, attempt!.id);
    expect(after).toMatchObject({ status: "succeeded", calls: 1, isFull: true });
    expect(after?.receipt).toMatchObject({
      client_request_id: "pd-refund-crash-before-call",
      is_full_refund: true,
      card_refunded_usd: "30.00",
    });
    expect(refundEvents(c.emulator, SUBS.crash, 1)).toHaveLength(1);
    const calls = (await auditOf(SUBS.crash)).filter((a) => a.action === "refund.call");
    expect(calls).toMatchObject([{ outcome: "succeeded", actor_email: null, detail: { source: "reconciler" } }]);
  });

  it(
    "a pending attempt whose refund landed before a crash " + "is finished by the reconciler without a second refund",
    async () => {
      const key = "pd-refund-crash-after-call";
      // The service made the refund; the process died before it stored the answer.
      const made = await c.admin("/refunds", {
        subscription_id: SUBS.crashLanded,
        period_seq: 2,
        amount_usd: "7.00",
        client_request_id: key,
        reason: "before crash",
      });
      expect(made.status).toBe(201);
      const attempt = await insertRefundAttempt(c.t.db, {
        gameId: GAME_ID,
        subscriptionId: SUBS.crashLanded,
        periodSeq: 2,
        periodId: periodIdOf(SUBS.crashLanded, 2),
        playerEmail: PLAYER.email,
        amountUsd: "7.00",
        remainingBeforeUsd: "30.00",
        isFull: false,
        reason: "before crash",
        clientRequestId: key,
        intentKey: refundIntentKey({
          gameId: GAME_ID,
          subscriptionId: SUBS.crashLanded,
          periodSeq: 2,
          amountUsd: "7.00",
          remainingBeforeUsd: "30.00",
        }),
        actor: null,
        impact: {},
      });
      // It was being called when the process died: the hold it took has run out.
      await c.t.db
        .updateTable("refund_attempt")
        .set({
          calls: 1,
          claimed_until: new Date(Date.now() - 1000),
          last_called_at: new Date(Date.now() - 10 * 60_000),
        })
        .where("id", "=", attempt!.id)
        .execute();
      const summary = await reconcilePendingRefunds(c.t.db, { attemptId: attempt!.id });
      expect(summary.outcomes).toEqual([{ id: attempt!.id, state: "succeeded" }]);
      expect(await findRefundAttempt(c.t.db, GAME_ID, attempt!.id)).toMatchObject({
        status: "succeeded",
        idempotentReplay: true,
        calls: 2,
      });
      expect(refundEvents(c.emulator, SUBS.crashLanded, 2)).toHaveLength(1);
    },
  );

  it("over-refund: the service's AMOUNT_EXCEEDS_REMAINING reaches the screen with the remaining amount", async () => {
    actAs(c.sessions.support);
    // The service stays unavailable through every in-call retry: the attempt is kept pending with its key.
    await c.admin("/faults", { route: `/api/subscriptions/${SUBS.exceeds}/refund`, fault: "503", count: 5 });
    const first = (await refundAction(refundForm(SUBS.exceeds, 3, "10.00", "12.00"))) as Ok;
    expect(first).toMatchObject({ ok: true, data: { state: "pending" } });
    expect(first.message).toMatch(/temporarily unavailable.*same request id/);
    expect(refundEvents(c.emulator, SUBS.exceeds, 3)).toHaveLength(0);
    // Meanwhile someone refunds 5.00 of the period with the service's own tools.
    await c.admin("/refunds", { subscription_id: SUBS.exceeds, period_seq: 3, amount_usd: "5.00" });
    // Retrying the pending attempt sends the stored 10.00, which is now more than the 7.00 left.
    const retried = (await refundAction(refundForm(SUBS.exceeds, 3, "10.00", "12.00"))) as Fail;
    expect(retried).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(retried.message).toContain("USD 7.00 remains refundable");
    expect(retried.message).toContain("USD 5.00 already refunded");
    expect(retried.fieldErrors?.amountUsd).toBe(retried.message);
    const [attempt] = await attemptsOf(SUBS.exceeds);
    expect(attempt).toMatchObject({ status: "failed", last_error_code: "AMOUNT_EXCEEDS_REMAINING", calls: 2 });
    expect(attempt?.last_error_detail).toMatchObject({
      remaining_refundable_usd: "7.00",
      already_refunded_usd: "5.00",
    });
    expect(refundEvents(c.emulator, SUBS.exceeds, 3)).toHaveLength(1);

    // A new review sees the 7.00; asking for more is refused before anything is sent, naming the remaining amount.
    const preview = (await previewRefundAction(
      form({ subscriptionId: SUBS.exceeds, periodId: periodIdOf(SUBS.exceeds, 3), mode: "partial", amountUsd: "8.00" }),
    )) as Fail;
    expect(preview).toMatchObject({
      ok: false,
      fieldErrors: { amountUsd: "must be at most the remaining refundable USD 7.00" },
    });
    // The refused attempt freed its intent: the same refund, reviewed again at 7.00, goes through.
    const full = (await refundAction(refundForm(SUBS.exceeds, 3, "7.00", "7.00"))) as Ok;
    expect(full).toMatchObject({ ok: true, data: { state: "succeeded" } });
  });

  it("a second tab that reviewed the period before another refund is sent back to review", async () => {
    actAs(c.sessions.support);
    await c.admin("/refunds", { subscription_id: SUBS.changed, period_seq: 1, amount_usd: "3.00" });
    const stale = (await refundAction(refundForm(SUBS.changed, 1, "3.00", "10.00"))) as Fail;
    expect(stale).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(stale.message).toMatch(/USD 7.00 remains refundable now \(it was USD 10.00\)/);
    expect(await attemptsOf(SUBS.changed)).toHaveLength(0);
    expect(refundEvents(c.emulator, SUBS.changed, 1)).toHaveLength(1);
  });

  it("[support] above the refund limit is refused and recorded; [finance] may make the same refund", async () => {
    actAs(c.sessions.admin);
    const { saveSupportRefundLimitAction } = await import("@/app/(desk)/settings/refunds/actions");
    expect(await saveSupportRefundLimitAction(form({ amountUsd: "25.00" }))).toMatchObject({ ok: true });

    actAs(c.sessions.support);
    const refused = (await refundAction(refundForm(SUBS.limit, 2, "30.00", "40.00"))) as Fail;
    expect(refused).toMatchObject({
      ok: false,
      code: "FORBIDDEN",
      fieldErrors: { amountUsd: expect.stringContaining("USD 25.00") },
    });
    expect(refused.message).toMatch(/needs a finance user/);
    expect(await attemptsOf(SUBS.limit)).toHaveLength(0);
    expect(refundEvents(c.emulator, SUBS.limit, 2)).toHaveLength(0);
    expect((await auditOf(SUBS.limit)).map((a) => a.outcome)).toEqual(["refused_over_limit"]);

    // Within the limit, support may.
    expect(await refundAction(refundForm(SUBS.limit, 1, "25.00", "40.00"))).toMatchObject({
      ok: true,
      data: { state: "succeeded" },
    });

    actAs(c.sessions.finance);
    expect(await refundAction(refundForm(SUBS.limit, 2, "30.00", "40.00"))).toMatchObject({
      ok: true,
      data: { state: "succeeded" },
    });
    expect(refundEvents(c.emulator, SUBS.limit, 2)).toHaveLength(1);
  });

  it("REFUND_MISMATCH marks the attempt for manual attention, blocks the period, and finance settles it", async () => {
    actAs(c.sessions.support);
    await c.admin("/faults", {
      route: `/api/subscriptions/${SUBS.attention}/refund`,
      fault: "502",
      error_code: "REFUND_MISMATCH",
      count: 1,
    });
    const result = (await refundAction(refundForm(SUBS.attention, 3, "10.00", "10.00"))) as Ok;
    expect(result).toMatchObject({ ok: true, data: { state: "needs_attention" } });
    expect(result.message).toMatch(/manual attention: do not refund again/);
    const [attempt] = await attemptsOf(SUBS.attention);
    expect(attempt).toMatchObject({ status: "needs_attention", last_error_code: "REFUND_MISMATCH", calls: 1 });

    // Never retried, and nothing else may be refunded on the period meanwhile.
    expect((await reconcilePendingRefunds(c.t.db, { attemptId: attempt!.id })).examined).toBe(0);
    const other = (await refundAction(refundForm(SUBS.attention, 3, "1.00", "10.00"))) as Fail;
    expect(other).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(other.message).toMatch(/waiting for manual attention/);

    expect(await resolveRefundAttemptAction(form({ attemptId: attempt!.id, note: "no" }))).toMatchObject({
      ok: false,
      code: "FORBIDDEN",
    });
    actAs(c.sessions.finance);
    expect(
      await resolveRefundAttemptAction(
        form({
          attemptId: attempt!.id,
          outcome: "not_refunded",
          note: "Service confirmed nothing was refunded (ticket 4411).",
        }),
      ),
    ).toMatchObject({
      ok: true,
    });
    expect((await auditOf(SUBS.attention)).map((a) => `${a.action}:${a.outcome}`)).toEqual([
      "refund.request:pending",
      "refund.call:needs_attention",
      "refund.resolve:resolved",
    ]);
  });

  it(
    "service_unavailable and FLOW_PAUSED keep the attempt " + "pending; a retry sends the same key and parameters",
    async () => {
      actAs(c.sessions.support);
      await c.admin("/pause", { paused: true });
      const paused = (await refundAction(refundForm(SUBS.unavailable, 2, "1.00", "10.00"))) as Ok;
      expect(paused).toMatchObject({ ok: true, data: { state: "pending" } });
      expect(paused.message).toMatch(/paused at the service for maintenance/);
      await c.admin("/pause", { paused: false });
      const [attempt] = await attemptsOf(SUBS.unavailable);
      const retried = (await retryRefundAttemptAction(form({ attemptId: attempt!.id }))) as Ok;
      expect(retried).toMatchObject({ ok: true, data: { attemptId: attempt!.id, state: "succeeded" } });
      const after = await findRefundAttempt(c.t.db, GAME_ID, attempt!.id);
      expect(after).toMatchObject({ calls: 2, clientRequestId: attempt!.client_request_id, amountUsd: "1.00" });
      expect(after?.receipt).toMatchObject({
        client_request_id: attempt!.client_request_id,
        refunded_amount_usd: "1.00",
        reason: "Player asked",
      });
      expect(refundEvents(c.emulator, SUBS.unavailable, 2)).toHaveLength(1);
    },
  );

  it("a pcstore-charged period is shown as not refundable; its wallet-covered period refunds in coins", async () => {
    actAs(c.sessions.support);
    const pcstore = (await previewRefundAction(
      form({ subscriptionId: SUBS.pcstore, periodId: periodIdOf(SUBS.pcstore, 1), mode: "full" }),
    )) as Ok;
    expect(pcstore.data).toMatchObject({ refundable: false, blocker: "pcstore", rail: "pcstore" });
    const refused = (await refundAction(refundForm(SUBS.pcstore, 1, "8.00", "8.00"))) as Fail;
    expect(refused).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(refused.message).toMatch(/pcstore/);

    const wallet = (await previewRefundAction(
      form({ subscriptionId: SUBS.pcstore, periodId: periodIdOf(SUBS.pcstore, 2), mode: "full" }),
    )) as Ok;
    expect(wallet.data).toMatchObject({
      refundable: true,
      fundingShape: "wallet",
      cardRefundUsd: "0.00",
      balanceDeltaCoins: "80.00",
      isFull: true,
    });
    const done = (await refundAction(refundForm(SUBS.pcstore, 2, "8.00", "8.00"))) as Ok;
    expect(done).toMatchObject({ ok: true, data: { state: "succeeded" } });
    const [attempt] = await attemptsOf(SUBS.pcstore);
    expect(attempt?.receipt).toMatchObject({
      funding_shape: "wallet",
      card_refunded_usd: "0.00",
      balance_delta_coins: "80.00",
    });
  });

  it("refuses malformed input naming the field, before anything is stored", async () => {
    actAs(c.sessions.support);
    const bad = (await refundAction(refundForm(SUBS.basic, 1, "1.234", "10.00"))) as Fail;
    expect(bad).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
      fieldErrors: { amountUsd: expect.stringMatching(/two decimals/) },
    });
    const long = (await refundAction(refundForm(SUBS.basic, 1, "1.00", "10.00", "x".repeat(501)))) as Fail;
    expect(long.fieldErrors?.reason).toMatch(/500/);
  });

  it("the reconciler is a registered job that runs every minute", async () => {
    const { JOBS } = await import("@/lib/jobs/registry");
    const job = JOBS.find((j) => j.definition.name === "refunds.reconcile");
    expect(job?.schedule).toEqual({ cron: "* * * * *", payload: {} });
    const handler = await job!.handler();
    // Nothing is stale now: the sweep looks and finds nothing to call.
    await expect(handler({}, { jobId: "test", attempt: 1 })).resolves.toBeUndefined();
  });
});
