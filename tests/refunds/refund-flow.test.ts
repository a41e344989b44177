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
import { type Ok, refundReaders, screenRefundForm } from "./helpers";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

const { previewRefundAction, refundAction } = await import("@/app/(desk)/subscriptions/actions");
const { reconcilePendingRefunds } = await import("@/lib/refunds/reconcile");
const { insertRefundAttempt, findRefundAttempt } = await import("@/db/queries/refunds");
const { refundIntentKey } = await import("@/lib/refunds/intent");

let c: RefundTestContext;
beforeAll(async () => {
  c = await startRefundTest();
});
afterAll(async () => c?.close());
const { attemptsOf, auditOf } = refundReaders(() => c);

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
    const result = (await refundAction(screenRefundForm(SUBS.basic, 3, "2.50", "10.00"))) as Ok;
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
    const again = (await refundAction(screenRefundForm(SUBS.basic, 3, "2.50", "10.00"))) as Ok;
    expect(again.data).toEqual({ attemptId: attempt?.id, state: "succeeded" });
    expect(refundEvents(c.emulator, SUBS.basic, 3)).toHaveLength(1);
    expect(await attemptsOf(SUBS.basic)).toHaveLength(1);

    // Someone else confirming the same review later (a page left open) is not told the refund was theirs.
    actAs(c.sessions.finance);
    const other = await refundAction(screenRefundForm(SUBS.basic, 3, "2.50", "10.00"));
    expect(other).toMatchObject({ ok: false, code: "CONFLICT" });
    const said = (other as { message: string }).message;
    expect(said).toMatch(/^\S+@\S+ refunded USD 2\.50 of this period at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(said).toMatch(/nothing more was refunded\. Review the period again to refund more\.$/);
    expect(refundEvents(c.emulator, SUBS.basic, 3)).toHaveLength(1);
    expect(await attemptsOf(SUBS.basic)).toHaveLength(1);
  });

  it(
    "a response dropped after the service processed it is " +
      "retried with the same key: one refund, idempotent_replay",
    async () => {
      actAs(c.sessions.support);
      await c.admin("/faults", { route: `/api/subscriptions/${SUBS.dropped}/refund`, fault: "drop", count: 1 });
      const result = (await refundAction(screenRefundForm(SUBS.dropped, 2, "4.00", "10.00"))) as Ok;
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

  it("a card refund issued before the call failed is recorded once by the retry with the same key", async () => {
    actAs(c.sessions.support);
    await c.admin(`/subscriptions/${SUBS.adopted}/card-refund-fails-after-issue`, {});
    const result = (await refundAction(screenRefundForm(SUBS.adopted, 2, "10.00", "10.00"))) as Ok;
    expect(result).toMatchObject({ ok: true, data: { state: "succeeded" } });
    const [attempt] = await attemptsOf(SUBS.adopted);
    expect(attempt).toMatchObject({ status: "succeeded", idempotent_replay: false });
    expect(attempt?.receipt).toMatchObject({
      refunded_amount_usd: "10.00",
      card_refunded_usd: "10.00",
      processor_refund_adopted: true,
      client_request_id: attempt?.client_request_id,
    });
    const events = refundEvents(c.emulator, SUBS.adopted, 2);
    expect(events).toHaveLength(1);
    expect(events[0]?.processorRefundAdopted).toBe(true);
    const call = (await auditOf(SUBS.adopted)).find((a) => a.action === "refund.call");
    expect(call?.detail).toMatchObject({ http_attempts: 2 });
  });

  it("ten concurrent submissions of the same intent make one attempt and one refund", async () => {
    actAs(c.sessions.support);
    const results = (await Promise.all(
      Array.from({ length: 10 }, () => refundAction(screenRefundForm(SUBS.concurrent, 3, "5.00", "20.00"))),
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
});
