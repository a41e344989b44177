import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { actAs } from "../support/next-request";
import { form, GAME_ID, periodIdOf, refundEvents, type RefundTestContext, startRefundTest, SUBS } from "./setup";
import type { LeaseClock } from "@/lib/refunds/lease";
import { REQUESTER, RETRIER, type Ok, type Fail, refundForm, refundReaders } from "./helpers";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/headers.js", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

const { refundAction, retryRefundAttemptAction } = await import("@/app/(desk)/subscriptions/actions");
const { driveRefundAttempt, requestRefund } = await import("@/lib/refunds/attempts");
const { reconcilePendingRefunds } = await import("@/lib/refunds/reconcile");
const { findRefundAttempt } = await import("@/db/queries/refunds");
const { SYSTEM_CLOCK } = await import("@/lib/refunds/lease");

let c: RefundTestContext;
beforeAll(async () => {
  c = await startRefundTest();
});
afterAll(async () => c?.close());
const { auditOf, amounts, storeAttempt } = refundReaders(() => c);

describe("L3: a refund that landed between the review and the stored attempt", () => {
  it(
    "[support] the second tab's refund is refused without calling the service and sent back with the new remaining " +
      "amount",
    async () => {
      const sub = SUBS.raced;
      const periodId = periodIdOf(sub, 3);
      const base = { gameId: GAME_ID, subscriptionId: sub, periodId, periodSeq: 3, reason: "Player asked" };
      let tab1: Awaited<ReturnType<typeof requestRefund>> | null = null;
      // Tab 2's check of the period is answered as reviewed; then tab 1's refund of another amount finishes, before tab
      // 2
      // stores its attempt.
      const racingFetch = async (url: string, init: RequestInit) => {
        const response = await fetch(url, init);
        if (!tab1 && url.includes(`/reporting/periods/${periodId}`)) {
          tab1 = await requestRefund(
            c.t.db,
            { ...base, amountUsd: "5.00", remainingBeforeUsd: "20.00" },
            { id: "u-tab1", email: RETRIER, role: "finance" },
          );
        }
        return response;
      };
      const tab2 = await requestRefund(
        c.t.db,
        { ...base, amountUsd: "10.00", remainingBeforeUsd: "20.00" },
        { id: "u-tab2", email: REQUESTER, role: "support" },
        { client: { fetch: racingFetch } },
      );
      expect(tab1).toMatchObject({ state: "succeeded" });
      expect(tab2.state).toBe("failed");
      expect(tab2.message).toBe(
        "The period changed after this refund was reviewed: USD 15.00 remains refundable now (it was USD 20.00; USD " +
          "5.00 refunded to date). Nothing was sent to the service; review the refund again.",
      );
      const stored = await findRefundAttempt(c.t.db, GAME_ID, tab2.attempt.id);
      expect(stored).toMatchObject({
        status: "failed",
        lastErrorCode: "PERIOD_CHANGED",
        calls: 0,
        periodCheckedAt: null,
      });
      expect(stored?.lastErrorDetail).toMatchObject({
        remaining_refundable_usd: "15.00",
        already_refunded_usd: "5.00",
        reviewed_remaining_usd: "20.00",
      });
      // Only tab 1's refund reached the service; tab 2's request id was never sent.
      expect(amounts(sub, 3)).toEqual(["5.00"]);
      const ledger = c.emulator.ledger();
      expect(ledger.receipts.has(ledger.receiptKey(GAME_ID, sub, stored!.clientRequestId))).toBe(false);
      const audit = (await auditOf(sub)).filter((a) => a.idempotency_key === stored!.clientRequestId);
      expect(audit.map((a) => [a.action, a.outcome, a.actor_email])).toEqual([
        ["refund.request", "pending", REQUESTER],
        ["refund.check", "superseded", REQUESTER],
      ]);
      expect(audit[1]?.detail).toMatchObject({ sent: false, error_code: "PERIOD_CHANGED" });

      // Reviewed again at the new remaining amount, the same refund goes through.
      actAs(c.sessions.support);
      expect(await refundAction(refundForm(sub, 3, "10.00", "15.00"))).toMatchObject({
        ok: true,
        data: { state: "succeeded" },
      });
      expect(amounts(sub, 3)).toEqual(["5.00", "10.00"]);
    },
  );

  it(
    "[support] pressing Refund again on a stale stored attempt " +
      "names the amount field and the new remaining amount",
    async () => {
      const sub = SUBS.staleJoined;
      const attempt = await storeAttempt({
        subscriptionId: sub,
        seq: 1,
        amountUsd: "4.00",
        remainingBeforeUsd: "10.00",
        refundedToDateUsd: "0.00",
        clientRequestId: "pd-refund-stale-joined",
      });
      await c.admin("/refunds", { subscription_id: sub, period_seq: 1, amount_usd: "3.00" });
      actAs(c.sessions.support);
      const result = (await refundAction(refundForm(sub, 1, "4.00", "10.00"))) as Fail;
      expect(result).toMatchObject({ ok: false, code: "CONFLICT" });
      expect(result.fieldErrors?.amountUsd).toMatch(
        /USD 7\.00 remains refundable now \(it was USD 10\.00; USD 3\.00 refunded to date\)\. Nothing was sent/,
      );
      expect(await findRefundAttempt(c.t.db, GAME_ID, attempt.id)).toMatchObject({
        status: "failed",
        lastErrorCode: "PERIOD_CHANGED",
        calls: 0,
      });
      expect(amounts(sub, 1)).toEqual(["3.00"]);
    },
  );

  it(
    "[support] when the period cannot be read before the first " +
      "call, nothing is sent and the next Retry checks again",
    async () => {
      const sub = SUBS.staleJoined;
      const attempt = await storeAttempt({
        subscriptionId: sub,
        seq: 2,
        amountUsd: "2.00",
        remainingBeforeUsd: "10.00",
        refundedToDateUsd: "0.00",
        clientRequestId: "pd-refund-unread",
      });
      await c.admin("/faults", {
        route: `/api/subscriptions/reporting/periods/${periodIdOf(sub, 2)}`,
        fault: "503",
        count: 5,
      });
      actAs(c.sessions.support);
      const first = (await retryRefundAttemptAction(form({ attemptId: attempt.id }))) as Ok;
      expect(first).toMatchObject({ ok: true, data: { state: "pending" } });
      expect(first.message).toContain(
        "could not be read from the service before sending the refund (service_unavailable). Nothing has been sent yet",
      );
      expect(await findRefundAttempt(c.t.db, GAME_ID, attempt.id)).toMatchObject({
        status: "pending",
        calls: 0,
        periodCheckedAt: null,
      });
      expect(refundEvents(c.emulator, sub, 2)).toHaveLength(0);

      const second = (await retryRefundAttemptAction(form({ attemptId: attempt.id }))) as Ok;
      expect(second).toMatchObject({ ok: true, data: { state: "succeeded" } });
      const after = await findRefundAttempt(c.t.db, GAME_ID, attempt.id);
      expect(after).toMatchObject({ status: "succeeded", calls: 1 });
      expect(after?.periodCheckedAt).toBeInstanceOf(Date);
      expect(amounts(sub, 2)).toEqual(["2.00"]);
      expect(
        (await auditOf(sub))
          .filter((a) => a.idempotency_key === "pd-refund-unread")
          .map((a) => `${a.action}:${a.outcome}`),
      ).toEqual(["refund.check:pending_retry", "refund.call:succeeded"]);
    },
  );

  it("the reconciler checks an attempt a crash left unsent, and refuses it when the period changed", async () => {
    const sub = SUBS.staleCrash;
    const attempt = await storeAttempt({
      subscriptionId: sub,
      seq: 2,
      amountUsd: "6.00",
      remainingBeforeUsd: "10.00",
      refundedToDateUsd: "0.00",
      clientRequestId: "pd-refund-stale-crash",
    });
    await c.admin("/refunds", { subscription_id: sub, period_seq: 2, amount_usd: "5.00" });
    await c.t.db
      .updateTable("refund_attempt")
      .set({ created_at: new Date(Date.now() - 5 * 60_000) } as never)
      .where("id", "=", attempt.id)
      .execute();
    expect((await reconcilePendingRefunds(c.t.db, { attemptId: attempt.id })).outcomes).toEqual([
      { id: attempt.id, state: "failed" },
    ]);
    expect(amounts(sub, 2)).toEqual(["5.00"]);
    const audit = await auditOf(sub);
    expect(audit.map((a) => [a.action, a.outcome, a.actor_email])).toEqual([["refund.check", "superseded", null]]);
    expect(audit[0]?.detail).toMatchObject({ source: "reconciler", requested_by: REQUESTER });
  });

  it("the reconciler refuses an attempt left unsent whose card charge was disputed since its review", async () => {
    const sub = SUBS.disputedUnsent;
    const attempt = await storeAttempt({
      subscriptionId: sub,
      seq: 2,
      amountUsd: "10.00",
      remainingBeforeUsd: "10.00",
      refundedToDateUsd: "0.00",
      clientRequestId: "pd-refund-disputed-unsent",
    });
    // The cardholder disputes the charge before the attempt is sent (its period read failed, or its process ended).
    await c.admin("/disputes", { period_id: periodIdOf(sub, 2), emit_events: false });
    expect((await reconcilePendingRefunds(c.t.db, { attemptId: attempt.id })).outcomes).toEqual([
      { id: attempt.id, state: "failed" },
    ]);
    const stored = await findRefundAttempt(c.t.db, GAME_ID, attempt.id);
    expect(stored).toMatchObject({ status: "failed", lastErrorCode: "PERIOD_NOT_REFUNDABLE", calls: 0 });
    expect(stored?.lastErrorMessage).toMatch(/^The cardholder disputed this period's card charge .* Nothing was sent/);
    expect(refundEvents(c.emulator, sub, 2)).toHaveLength(0);
    const audit = await auditOf(sub);
    expect(audit.map((a) => [a.action, a.outcome])).toEqual([["refund.check", "failed"]]);
    expect(audit[0]?.detail).toMatchObject({ sent: false, error_code: "PERIOD_NOT_REFUNDABLE" });
    // Retry pressed on the page still showing it pending: told it ended unsent, not that the service refused it.
    actAs(c.sessions.support);
    const retried = (await retryRefundAttemptAction(form({ attemptId: attempt.id }))) as Fail;
    expect(retried).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(retried.message).toMatch(/^This refund ended meanwhile without being sent to the service: nothing was/);
  });
});

/** One review of a period of SUBS.killBefore (USD 10.00 left), and the two support people who confirm it. */
function sameReview(periodSeq: number, amountUsd: string) {
  const sub = SUBS.killBefore;
  return {
    request: {
      gameId: GAME_ID,
      subscriptionId: sub,
      periodId: periodIdOf(sub, periodSeq),
      periodSeq,
      amountUsd,
      remainingBeforeUsd: "10.00",
      reason: "Player asked",
    },
    first: { id: "u-first", email: "first@payout-desk.test", role: "support" as const },
    second: { id: "u-second", email: "second@payout-desk.test", role: "support" as const },
  };
}

describe("two people confirming the same review at once", () => {
  it("the one whose attempt is stored second is told who refunded what, not shown the refund as theirs", async () => {
    const sub = SUBS.killBefore;
    const { request, first, second } = sameReview(2, "4.00");
    let firstOutcome: Awaited<ReturnType<typeof requestRefund>> | null = null;
    // The second person's period read finds the period as reviewed; before their attempt is stored, the first
    // person's refund of the same review is stored and made.
    let periodRead!: () => void;
    const periodReadDone = new Promise<void>((resolve) => {
      periodRead = resolve;
    });
    const meanwhile = async (url: string, init: RequestInit) => {
      if (url.includes("include_player")) {
        await periodReadDone;
        firstOutcome = await requestRefund(c.t.db, request, first);
        return fetch(url, init);
      }
      const answer = await fetch(url, init);
      if (url.includes("/reporting/periods/")) periodRead();
      return answer;
    };
    const refused = requestRefund(c.t.db, request, second, { client: { fetch: meanwhile } });
    await expect(refused).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(refused).rejects.toThrow(/first@payout-desk\.test/);
    expect(firstOutcome).toMatchObject({ state: "succeeded" });
    expect(amounts(sub, 2)).toEqual(["4.00"]);
  });

  it("one who presses while the other's call is under way is told who refunded what once it lands", async () => {
    const sub = SUBS.killBefore;
    const { request, first, second } = sameReview(3, "1.00");
    // The first person's call is held until the second person's request has joined the attempt and is waiting on it.
    let calling!: () => void;
    const called = new Promise<void>((resolve) => {
      calling = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const made = requestRefund(c.t.db, request, first, {
      hooks: {
        beforeCall: async () => {
          calling();
          await released;
        },
      },
    });
    await called;
    // The second request reads the clock of the hold each time it looks at the attempt it joined, still pending.
    let waiting!: () => void;
    const joinedPending = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    const watching: LeaseClock = {
      ...SYSTEM_CLOCK,
      leaseNow: (db) => {
        waiting();
        return SYSTEM_CLOCK.leaseNow(db);
      },
    };
    const joined = requestRefund(c.t.db, request, second, { clock: watching });
    await joinedPending;
    release();
    await expect(made).resolves.toMatchObject({ state: "succeeded" });
    await expect(joined).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(joined).rejects.toThrow(/^first@payout-desk\.test refunded USD 1\.00 of this period at /);
    // The one who pressed first is still shown the refund as theirs when they press again.
    await expect(requestRefund(c.t.db, request, first)).resolves.toMatchObject({ state: "succeeded" });
    expect(amounts(sub, 3)).toEqual(["1.00"]);
  });
});

describe("a refund call's audit line", () => {
  const person = { id: "u-first", email: "first@payout-desk.test", role: "support" as const };
  const review = (periodSeq: number) => ({
    gameId: GAME_ID,
    subscriptionId: SUBS.lostHold,
    periodId: periodIdOf(SUBS.lostHold, periodSeq),
    periodSeq,
    amountUsd: "1.00",
    remainingBeforeUsd: "10.00",
    reason: "Player asked",
  });

  it("is written when the attempt was settled by another request while the call was under way", async () => {
    const made = requestRefund(c.t.db, review(1), person, {
      hooks: {
        afterAnswer: async (attempt) => {
          await c.t.db
            .updateTable("refund_attempt")
            .set({ status: "needs_attention", last_error_code: "SETTLED_ELSEWHERE", claim_token: null })
            .where("id", "=", attempt.id)
            .execute();
        },
      },
    });
    await made.catch(() => undefined);
    expect(amounts(SUBS.lostHold, 1)).toEqual(["1.00"]);
    const calls = (await auditOf(SUBS.lostHold)).filter((a) => a.action === "refund.call");
    expect(calls).toEqual([
      expect.objectContaining({
        outcome: "hold_lost",
        detail: expect.objectContaining({ answered: "succeeded", transaction_id: expect.any(String) }),
      }),
    ]);
  });

  it("of a later call that failed before its request went out keeps what the earlier call left unknown", async () => {
    const stored = await storeAttempt({
      subscriptionId: SUBS.lostHold,
      seq: 3,
      amountUsd: "1.00",
      remainingBeforeUsd: "10.00",
      refundedToDateUsd: "0.00",
      clientRequestId: "pd-refund-retry-unsent",
      sent: true,
    });
    await c.t.db.updateTable("refund_attempt").set({ outcome_unknown: true }).where("id", "=", stored.id).execute();
    const failing = async () => {
      throw new Error("connection reset");
    };
    await driveRefundAttempt(c.t.db, stored, { hooks: { beforeCall: failing } }).catch(() => undefined);
    const last = (await auditOf(SUBS.lostHold)).filter((a) => a.action.startsWith("refund.c")).at(-1);
    expect(last).toMatchObject({
      action: "refund.call",
      detail: expect.objectContaining({ sent: false, outcome_unknown: true }),
    });
  });

  it("says nothing was sent when the call failed before its request went out", async () => {
    const failed = requestRefund(c.t.db, review(2), person, {
      hooks: {
        beforeCall: async () => {
          throw new Error("connection reset");
        },
      },
    });
    await failed.catch(() => undefined);
    expect(amounts(SUBS.lostHold, 2)).toEqual([]);
    const last = (await auditOf(SUBS.lostHold))
      .filter((a) => ["refund.call", "refund.check"].includes(a.action))
      .at(-1);
    expect(last).toMatchObject({
      action: "refund.check",
      outcome: "pending_retry",
      detail: expect.objectContaining({ sent: false }),
    });
  });
});
