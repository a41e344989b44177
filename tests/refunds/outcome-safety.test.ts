import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { actAs } from "../support/next-request";
import { form, GAME_ID, GAME_SECRET, periodIdOf, PLAYER, type RefundTestContext, startRefundTest, SUBS } from "./setup";
import { type Fail, type Ok, refundForm, refundReaders, refuseNextRefund } from "./helpers";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

const { refundAction, resolveRefundAttemptAction, retryRefundAttemptAction } = await import(
  "@/app/(desk)/subscriptions/actions"
);
const { requestRefund, readSupportLimitStanding } = await import("@/lib/refunds/attempts");
const { reconcilePendingRefunds } = await import("@/lib/refunds/reconcile");
const { findRefundAttempt, insertRefundAttempt } = await import("@/db/queries/refunds");
const { refundIntentKey } = await import("@/lib/refunds/intent");

let c: RefundTestContext;
beforeAll(async () => {
  c = await startRefundTest();
});
afterAll(async () => c?.close());

const { attemptsOf, amounts } = refundReaders(() => c);

const SUPPORT = { id: "u-support", email: "support@payout-desk.test", role: "support" as const };

describe("after an unknown outcome, only a receipt or the period report ends a refund", () => {
  it(
    "[support] a call whose answers were all lost, then a Retry answered 401 after the secret was replaced: needs " +
      "attention, never refunded twice",
    async () => {
      const sub = SUBS.unknownThen401;
      actAs(c.sessions.support);
      // The service refunds on the first try, and every answer of the call (the first and its in-call retries) is lost.
      await c.admin("/faults", { route: `/api/subscriptions/${sub}/refund`, fault: "drop", count: 5 });
      const first = (await refundAction(refundForm(sub, 2, "4.00", "10.00"))) as Ok;
      expect(first).toMatchObject({ ok: true, data: { state: "pending" } });
      expect(amounts(sub, 2)).toEqual(["4.00"]);

      // The game secret is replaced at the service (twice, so the one Payout Desk holds is no longer accepted).
      expect((await c.admin(`/games/${GAME_ID}/rotate-secret`, {})).status).toBe(200);
      expect((await c.admin(`/games/${GAME_ID}/rotate-secret`, {})).status).toBe(200);
      let retried: Ok | Fail;
      try {
        retried = (await retryRefundAttemptAction(form({ attemptId: first.data.attemptId }))) as Ok | Fail;
      } finally {
        // The secret is right again from here on.
        expect((await c.admin(`/games/${GAME_ID}/rotate-secret`, { secret: GAME_SECRET })).status).toBe(200);
      }
      expect(retried).toMatchObject({ ok: true, data: { state: "needs_attention" } });
      expect(retried.message).toContain("the service may have made this refund");
      expect(retried.message).toContain("do not refund again");
      const stored = await findRefundAttempt(c.t.db, GAME_ID, first.data.attemptId);
      expect(stored).toMatchObject({
        status: "needs_attention",
        lastErrorCode: "INVALID_GAME_SECRET",
        outcomeUnknown: true,
      });
      expect(stored?.lastErrorDetail).toMatchObject({ http_status: 401, earlier_outcome_unknown: true });

      // Once the secret is right again, the same refund confirmed again joins the attempt: nothing is refunded twice.
      const again = (await refundAction(refundForm(sub, 2, "4.00", "10.00"))) as Ok | Fail;
      expect(again).toMatchObject({ ok: true, data: { attemptId: first.data.attemptId, state: "needs_attention" } });
      // The reconciler leaves it to a person too.
      expect((await reconcilePendingRefunds(c.t.db, { attemptId: first.data.attemptId })).examined).toBe(0);
      expect(amounts(sub, 2)).toEqual(["4.00"]);
      expect(await attemptsOf(sub)).toHaveLength(1);
      // And the support limit still counts it.
      expect(
        (await readSupportLimitStanding(c.t.db, { gameId: GAME_ID, subscriptionId: sub, periodSeq: 2 })).usedUsd,
      ).toBe("4.00");
    },
  );

  it(
    "an in-call retry answered 404 (another environment) after a try that timed out once the service had refunded: " +
      "needs attention",
    async () => {
      const sub = SUBS.unknownThen404;
      const request = {
        gameId: GAME_ID,
        subscriptionId: sub,
        periodId: periodIdOf(sub, 3),
        periodSeq: 3,
        amountUsd: "3.00",
        remainingBeforeUsd: "10.00",
        reason: "Player asked",
      };
      let posts = 0;
      // The first try reaches the service and its answer is lost; the retry lands somewhere that knows no such
      // subscription.
      const fetchLosingTheAnswer = async (url: string, init: RequestInit) => {
        if (init.method !== "POST") return fetch(url, init);
        posts += 1;
        if (posts === 1) {
          await fetch(url, init);
          throw new TypeError("fetch failed", {
            cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
          });
        }
        return new Response(
          JSON.stringify({ error: "Subscription not found.", error_code: "SUBSCRIPTION_NOT_FOUND" }),
          {
            status: 404,
            headers: { "content-type": "application/json" },
          },
        );
      };
      const outcome = await requestRefund(c.t.db, request, SUPPORT, {
        client: { fetch: fetchLosingTheAnswer, backoffBaseMs: 1 },
      });
      expect(posts).toBe(2);
      expect(outcome.state).toBe("needs_attention");
      expect(outcome.message).toContain("the service may have made this refund");
      expect(amounts(sub, 3)).toEqual(["3.00"]);

      // The same refund confirmed again reaches the same attempt and refunds nothing more.
      const again = await requestRefund(c.t.db, request, SUPPORT);
      expect(again).toMatchObject({ state: "needs_attention", attempt: { id: outcome.attempt.id } });
      expect(amounts(sub, 3)).toEqual(["3.00"]);
      expect(await attemptsOf(sub)).toHaveLength(1);
      expect(await findRefundAttempt(c.t.db, GAME_ID, outcome.attempt.id)).toMatchObject({
        status: "needs_attention",
        lastErrorCode: "SUBSCRIPTION_NOT_FOUND",
        outcomeUnknown: true,
      });
    },
  );

  it("a call cut off by a crash (its hold ran out) counts as unknown: a later refusal needs attention", async () => {
    const sub = SUBS.crashThenRefused;
    const key = "pd-refund-crash-then-refused";
    // The service made the refund; the process holding the attempt died before it heard back.
    expect(
      (await c.admin("/refunds", { subscription_id: sub, period_seq: 1, amount_usd: "2.00", client_request_id: key }))
        .status,
    ).toBe(201);
    const attempt = await insertRefundAttempt(c.t.db, {
      gameId: GAME_ID,
      subscriptionId: sub,
      periodSeq: 1,
      periodId: periodIdOf(sub, 1),
      playerEmail: PLAYER.email,
      amountUsd: "2.00",
      remainingBeforeUsd: "10.00",
      isFull: false,
      reason: null,
      clientRequestId: key,
      intentKey: refundIntentKey({
        gameId: GAME_ID,
        subscriptionId: sub,
        periodSeq: 1,
        amountUsd: "2.00",
        remainingBeforeUsd: "10.00",
      }),
      actor: SUPPORT,
      impact: {},
    });
    await c.t.db
      .updateTable("refund_attempt")
      .set({
        calls: 1,
        period_checked_at: new Date(Date.now() - 10 * 60_000),
        last_called_at: new Date(Date.now() - 10 * 60_000),
        claimed_until: new Date(Date.now() - 1000),
      })
      .where("id", "=", attempt!.id)
      .execute();
    // The next call meets a refusal that says nothing about the first one.
    await refuseNextRefund(c, sub, "PROCESSOR_NOT_CONFIGURED");
    const summary = await reconcilePendingRefunds(c.t.db, { attemptId: attempt!.id });
    expect(summary.outcomes).toEqual([{ id: attempt!.id, state: "needs_attention" }]);
    expect(amounts(sub, 1)).toEqual(["2.00"]);
    expect(await findRefundAttempt(c.t.db, GAME_ID, attempt!.id)).toMatchObject({
      status: "needs_attention",
      outcomeUnknown: true,
    });
  });

  it("[support] a refusal with no unknown call before it still frees the intent (nothing moved)", async () => {
    const sub = SUBS.crashThenRefused;
    actAs(c.sessions.support);
    await refuseNextRefund(c, sub, "PROCESSOR_NOT_CONFIGURED");
    const refused = (await refundAction(refundForm(sub, 3, "1.00", "10.00"))) as Fail;
    expect(refused).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(refused.message).toContain("Nothing was refunded");
    const again = (await refundAction(refundForm(sub, 3, "1.00", "10.00"))) as Ok;
    expect(again).toMatchObject({ ok: true, data: { state: "succeeded" } });
    expect(amounts(sub, 3)).toEqual(["1.00"]);
  });

  it("[support] a 503 saying only by its public code that nothing was sent is recorded failed", async () => {
    const sub = SUBS.crashThenRefused;
    actAs(c.sessions.support);
    await refuseNextRefund(c, sub, "acme_gateway_down", { fault: "503", errorCodePublic: "PROCESSOR_UNAVAILABLE" });
    const refused = (await refundAction(refundForm(sub, 3, "1.00", "9.00"))) as Fail;
    expect(refused).toMatchObject({ ok: false, code: "CONFLICT" });
    const last = (await attemptsOf(sub)).at(-1);
    expect(last).toMatchObject({ status: "failed", outcome_unknown: false });
    const call = await c.t.db
      .selectFrom("audit_log")
      .select("detail")
      .where("action", "=", "refund.call")
      .where("idempotency_key", "=", last?.client_request_id ?? "")
      .executeTakeFirstOrThrow();
    expect(call.detail).not.toHaveProperty("outcome_unknown");
    expect(amounts(sub, 3)).toEqual(["1.00"]);
  });
});

describe("a refund settled by hand counts what moved and frees the intent when nothing moved", () => {
  async function needsAttention(sub: string, amountUsd: string, seq = 2): Promise<string> {
    actAs(c.sessions.support);
    await refuseNextRefund(c, sub, "REFUND_MISMATCH");
    const result = (await refundAction(refundForm(sub, seq, amountUsd, "200.00"))) as Ok;
    expect(result).toMatchObject({ ok: true, data: { state: "needs_attention" } });
    return result.data.attemptId as string;
  }

  it("[finance] settles a refund the service made: support's limit keeps counting it", async () => {
    const sub = SUBS.settledRefunded;
    const attemptId = await needsAttention(sub, "40.00");
    const target = { gameId: GAME_ID, subscriptionId: sub, periodSeq: 2 };
    expect((await readSupportLimitStanding(c.t.db, target)).usedUsd).toBe("40.00");
    actAs(c.sessions.finance);
    const settled = (await resolveRefundAttemptAction(
      form({ attemptId, outcome: "refunded", note: "Service refunded it (ticket 5120)." }),
    )) as Ok;
    expect(settled).toMatchObject({ ok: true });
    expect(await readSupportLimitStanding(c.t.db, target)).toEqual({
      limitUsd: "50.00",
      usedUsd: "40.00",
      availableUsd: "10.00",
    });
    actAs(c.sessions.support);
    const over = (await refundAction(refundForm(sub, 2, "20.00", "200.00"))) as Fail;
    expect(over).toMatchObject({ ok: false, code: "FORBIDDEN" });
    expect(over.message).toContain("support has already refunded USD 40.00 of this period");
    expect(await findRefundAttempt(c.t.db, GAME_ID, attemptId)).toMatchObject({
      status: "resolved",
      resolutionOutcome: "refunded",
    });
    // The snapshot of the refund's window no longer matches the service: marked stale as a landed refund marks it.
    const marks = await c.t.db
      .selectFrom("snapshot_stale_mark")
      .select(["reason", "detail"])
      .where("game_id", "=", GAME_ID)
      .execute();
    const ofAttempt = marks.filter((m) => (m.detail as { refundAttemptId?: string }).refundAttemptId === attemptId);
    expect(ofAttempt.length).toBeGreaterThan(0);
    for (const mark of ofAttempt) expect(mark).toMatchObject({ reason: "refund made in Payout Desk" });
  });

  it("[finance] settles a refund the service did not make: the same refund can be made again, and is", async () => {
    const sub = SUBS.settledNothing;
    const attemptId = await needsAttention(sub, "30.00");
    actAs(c.sessions.finance);
    expect(
      await resolveRefundAttemptAction(
        form({
          attemptId,
          outcome: "not_refunded",
          note: "Service says no refund (ticket 5121).",
          confirm: "confirmed",
        }),
      ),
    ).toMatchObject({ ok: true });
    const target = { gameId: GAME_ID, subscriptionId: sub, periodSeq: 2 };
    expect((await readSupportLimitStanding(c.t.db, target)).usedUsd).toBe("0.00");

    actAs(c.sessions.support);
    const again = (await refundAction(refundForm(sub, 2, "30.00", "200.00"))) as Ok;
    expect(again).toMatchObject({ ok: true, data: { state: "succeeded" } });
    expect(again.data.attemptId).not.toBe(attemptId);
    expect(amounts(sub, 2)).toEqual(["30.00"]);
    expect((await readSupportLimitStanding(c.t.db, target)).usedUsd).toBe("30.00");
    const audit = await c.t.db
      .selectFrom("audit_log")
      .select(["action", "outcome", "detail"])
      .where("action", "=", "refund.resolve")
      .where("target", "like", `${sub}%`)
      .execute();
    expect(audit.map((a) => a.detail)).toEqual([
      expect.objectContaining({ attempt_id: attemptId, resolution_outcome: "not_refunded", amount_usd: "30.00" }),
    ]);
  });

  it(
    "[finance] settling without saying whether the service refunded is refused, naming the field and keeping the " +
      "note",
    async () => {
      const attemptId = await needsAttention(SUBS.settledRefunded, "5.00", 3);
      actAs(c.sessions.finance);
      const missing = (await resolveRefundAttemptAction(
        form({ attemptId, note: "Service says no refund (ticket 5122)." }),
      )) as Fail & { values?: Record<string, string> };
      expect(missing).toMatchObject({
        ok: false,
        code: "INVALID_INPUT",
        fieldErrors: { outcome: "say whether the service refunded it" },
      });
      expect(missing.values?.note).toBe("Service says no refund (ticket 5122).");
      expect(await findRefundAttempt(c.t.db, GAME_ID, attemptId)).toMatchObject({ status: "needs_attention" });
    },
  );
});
