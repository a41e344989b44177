import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { actAs } from "../support/next-request";
import { signInAs } from "../support/users";
import { form, GAME_ID, periodIdOf, refundEvents, type RefundTestContext, startRefundTest, SUBS } from "./setup";
import {
  REQUESTER,
  SECOND_TAB,
  RETRIER,
  type Ok,
  type Fail,
  refundForm,
  previewForm,
  refundReaders,
  refuseNextRefund,
} from "./helpers";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/headers.js", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

const { previewRefundAction, refundAction, retryRefundAttemptAction } = await import(
  "@/app/(desk)/subscriptions/actions"
);
const { requestRefund, readSupportLimitStanding } = await import("@/lib/refunds/attempts");
const { reconcilePendingRefunds } = await import("@/lib/refunds/reconcile");
const { DEFAULT_SUPPORT_REFUND_LIMIT_USD, saveSupportRefundLimit } = await import("@/lib/refunds/settings");
const { findRefundAttempt } = await import("@/db/queries/refunds");

let c: RefundTestContext;
let requester: string[];
let secondTab: string[];
let retrier: string[];
beforeAll(async () => {
  c = await startRefundTest();
  requester = await signInAs(c.t.db, "support", REQUESTER);
  secondTab = await signInAs(c.t.db, "support", SECOND_TAB);
  retrier = await signInAs(c.t.db, "finance", RETRIER);
});
afterAll(async () => c?.close());
const { attemptsOf, auditOf, amounts } = refundReaders(() => c);

describe("M3: the support refund limit applies per period, in total", () => {
  it(
    "[support] cannot refund a USD 200.00 period as four USD 50.00 partials; [finance] can, and only support's " +
      "refunds count",
    async () => {
      const sub = SUBS.limitTotal;
      actAs(c.sessions.support);
      expect(await refundAction(refundForm(sub, 3, "50.00", "200.00"))).toMatchObject({
        ok: true,
        data: { state: "succeeded" },
      });

      // The review step already says the second partial needs finance, naming the field.
      const preview = (await previewRefundAction(previewForm(sub, 3, "50.00"))) as Fail;
      expect(preview).toMatchObject({ ok: false, code: "FORBIDDEN" });
      expect(preview.fieldErrors?.amountUsd).toBe(
        "Support may refund up to USD 50.00 per period, in total, and support has already refunded USD 50.00 of this " +
          "period; another USD 50.00 needs a finance user (support may refund at most USD 0.00 more).",
      );

      // Confirming anyway is refused and recorded; nothing is stored or sent, even a cent.
      for (const amount of ["50.00", "0.01"]) {
        const refused = (await refundAction(refundForm(sub, 3, amount, "150.00"))) as Fail;
        expect(refused).toMatchObject({
          ok: false,
          code: "FORBIDDEN",
          fieldErrors: { amountUsd: expect.stringContaining("per period, in total") },
        });
      }
      expect(await attemptsOf(sub)).toHaveLength(1);
      expect(amounts(sub, 3)).toEqual(["50.00"]);
      const refusals = (await auditOf(sub)).filter((a) => a.outcome === "refused_over_limit");
      expect(refusals.map((a) => a.detail)).toEqual([
        expect.objectContaining({
          amount_usd: "50.00",
          support_limit_usd: "50.00",
          support_refunded_on_period_usd: "50.00",
          role: "support",
        }),
        expect.objectContaining({
          amount_usd: "0.01",
          support_limit_usd: "50.00",
          support_refunded_on_period_usd: "50.00",
          role: "support",
        }),
      ]);

      // Finance may refund the rest in partials; their refunds do not use up support's limit, nor free it.
      actAs(c.sessions.finance);
      expect(await refundAction(refundForm(sub, 3, "50.00", "150.00"))).toMatchObject({
        ok: true,
        data: { state: "succeeded" },
      });
      actAs(c.sessions.support);
      expect(await refundAction(refundForm(sub, 3, "0.01", "100.00"))).toMatchObject({ ok: false, code: "FORBIDDEN" });
      expect(amounts(sub, 3)).toEqual(["50.00", "50.00"]);

      // Per period: another period of the same subscription has its own limit.
      expect(await refundAction(refundForm(sub, 2, "50.00", "200.00"))).toMatchObject({
        ok: true,
        data: { state: "succeeded" },
      });
    },
  );

  it(
    "[support] may refund up to the limit after a finance " + "refund on the same period, and not a cent more",
    async () => {
      const sub = SUBS.limitFinanceFirst;
      actAs(c.sessions.finance);
      expect(await refundAction(refundForm(sub, 3, "120.00", "200.00"))).toMatchObject({
        ok: true,
        data: { state: "succeeded" },
      });
      actAs(c.sessions.support);
      expect(await refundAction(refundForm(sub, 3, "30.00", "80.00"))).toMatchObject({
        ok: true,
        data: { state: "succeeded" },
      });
      const over = (await refundAction(refundForm(sub, 3, "20.01", "50.00"))) as Fail;
      expect(over).toMatchObject({ ok: false, code: "FORBIDDEN" });
      expect(over.message).toContain("support has already refunded USD 30.00 of this period");
      expect(over.message).toContain("support may refund at most USD 20.00 more");
      expect(await refundAction(refundForm(sub, 3, "20.00", "50.00"))).toMatchObject({
        ok: true,
        data: { state: "succeeded" },
      });
      expect(amounts(sub, 3)).toEqual(["120.00", "30.00", "20.00"]);
    },
  );

  it("counts pending and needs-attention attempts, not refused ones", async () => {
    const sub = SUBS.limitFinanceFirst;
    actAs(c.sessions.support);
    await refuseNextRefund(c, sub, "REFUND_MISMATCH");
    const attention = (await refundAction(refundForm(sub, 2, "40.00", "200.00"))) as Ok;
    expect(attention).toMatchObject({ ok: true, data: { state: "needs_attention" } });
    const target = { gameId: GAME_ID, subscriptionId: sub, periodSeq: 2 };
    expect(await readSupportLimitStanding(c.t.db, target)).toEqual({
      limitUsd: "50.00",
      usedUsd: "40.00",
      availableUsd: "10.00",
    });
    await c.t.db
      .updateTable("refund_attempt")
      .set({ status: "pending" })
      .where("id", "=", attention.data.attemptId)
      .execute();
    expect((await readSupportLimitStanding(c.t.db, target)).usedUsd).toBe("40.00");
    await c.t.db
      .updateTable("refund_attempt")
      .set({ status: "failed" })
      .where("id", "=", attention.data.attemptId)
      .execute();
    expect((await readSupportLimitStanding(c.t.db, target)).usedUsd).toBe("0.00");
  });

  it("[support] two different refunds confirmed at the same moment cannot add up past the limit", async () => {
    const sub = SUBS.limitConcurrent;
    actAs(c.sessions.support);
    const results = (await Promise.all([
      refundAction(refundForm(sub, 3, "30.00", "200.00")),
      refundAction(refundForm(sub, 3, "40.00", "200.00")),
    ])) as (Ok | Fail)[];
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).map((r) => (r as Fail).code)).toEqual([
      expect.stringMatching(/^(FORBIDDEN|CONFLICT)$/),
    ]);
    expect(refundEvents(c.emulator, sub, 3)).toHaveLength(1);
  });

  it(
    "[support] a support refund that lands after the limit " +
      "was first checked is counted when the attempt is stored",
    async () => {
      const sub = SUBS.limitConcurrent;
      const periodId = periodIdOf(sub, 2);
      const base = { gameId: GAME_ID, subscriptionId: sub, periodId, periodSeq: 2, reason: "Player asked" };
      const support = { id: "u-support", email: REQUESTER, role: "support" as const };
      let first: Awaited<ReturnType<typeof requestRefund>> | null = null;
      // The second refund passed its limit check and is reading the period when the first one (30.00) lands.
      const racingFetch = async (url: string, init: RequestInit) => {
        if (!first && url.includes(`/reporting/periods/${periodId}`)) {
          first = await requestRefund(c.t.db, { ...base, amountUsd: "30.00", remainingBeforeUsd: "200.00" }, support);
        }
        return fetch(url, init);
      };
      const second = requestRefund(c.t.db, { ...base, amountUsd: "40.00", remainingBeforeUsd: "170.00" }, support, {
        client: { fetch: racingFetch },
      });
      await expect(second).rejects.toMatchObject({
        code: "FORBIDDEN",
        field: "amountUsd",
        message: expect.stringContaining("support has already refunded USD 30.00 of this period"),
      });
      expect(first).toMatchObject({ state: "succeeded" });
      expect(amounts(sub, 2)).toEqual(["30.00"]);
      expect((await attemptsOf(sub)).filter((a) => a.period_seq === 2).map((a) => a.amount_usd)).toEqual(["30.00"]);
      // The test before this one refuses a refund on period 3 of the same subscription: read this period's refusal.
      const refusal = (await auditOf(`${sub} period 2`)).find((a) => a.outcome === "refused_over_limit");
      expect(refusal?.detail).toMatchObject({ amount_usd: "40.00", support_refunded_on_period_usd: "30.00" });
    },
  );

  it("[support] a limit an admin lowers after the first check applies when the attempt is stored", async () => {
    const sub = SUBS.limitConcurrent;
    const periodId = periodIdOf(sub, 1);
    const base = { gameId: GAME_ID, subscriptionId: sub, periodId, periodSeq: 1, reason: "Player asked" };
    const admin = { actor: { id: "u-admin", email: "admin@payout-desk.test" }, via: "web" as const };
    let lowered = false;
    // The refund passed its check against USD 50.00 and is reading the period when the limit is lowered to 20.00.
    const racingFetch = async (url: string, init: RequestInit) => {
      if (!lowered && url.includes(`/reporting/periods/${periodId}`)) {
        lowered = true;
        await saveSupportRefundLimit(c.t.db, "20.00", admin);
      }
      return fetch(url, init);
    };
    try {
      const refund = requestRefund(
        c.t.db,
        { ...base, amountUsd: "40.00", remainingBeforeUsd: "200.00" },
        { id: "u-support", email: REQUESTER, role: "support" },
        { client: { fetch: racingFetch } },
      );
      await expect(refund).rejects.toMatchObject({
        code: "FORBIDDEN",
        field: "amountUsd",
        message: expect.stringContaining("Support may refund up to USD 20.00 per period"),
      });
    } finally {
      await saveSupportRefundLimit(c.t.db, DEFAULT_SUPPORT_REFUND_LIMIT_USD, admin);
    }
    expect(lowered).toBe(true);
    expect(refundEvents(c.emulator, sub, 1)).toHaveLength(0);
    expect((await attemptsOf(sub)).filter((a) => a.period_seq === 1)).toHaveLength(0);
  });
});

describe("L2: refund.call names the user driving the call", () => {
  it(
    "[support] the requester, [support] a second tab and " + "[finance] Retry are each the actor of their own call",
    async () => {
      const sub = SUBS.driver;
      await c.admin("/pause", { paused: true });
      actAs(requester);
      expect(await refundAction(refundForm(sub, 2, "1.00", "10.00"))).toMatchObject({
        ok: true,
        data: { state: "pending" },
      });
      // The same intent from a second tab joins the attempt and makes the next call.
      actAs(secondTab);
      const joined = (await refundAction(refundForm(sub, 2, "1.00", "10.00"))) as Ok;
      expect(joined).toMatchObject({ ok: true, data: { state: "pending" } });
      await c.admin("/pause", { paused: false });
      actAs(retrier);
      expect(await retryRefundAttemptAction(form({ attemptId: joined.data.attemptId }))).toMatchObject({
        ok: true,
        data: { state: "succeeded" },
      });

      const audit = await auditOf(sub);
      expect(
        audit.map((a) => [
          a.action,
          a.outcome,
          a.actor_email,
          (a.detail as Record<string, unknown>).requested_by ?? null,
        ]),
      ).toEqual([
        ["refund.request", "pending", REQUESTER, null],
        ["refund.call", "pending_retry", REQUESTER, REQUESTER],
        ["refund.call", "pending_retry", SECOND_TAB, REQUESTER],
        ["refund.call", "succeeded", RETRIER, REQUESTER],
      ]);
      // The attempt itself keeps its requester.
      expect(await findRefundAttempt(c.t.db, GAME_ID, joined.data.attemptId)).toMatchObject({
        actorEmail: REQUESTER,
        calls: 3,
      });
      expect(refundEvents(c.emulator, sub, 2)).toHaveLength(1);
    },
  );

  it("the reconciler's call has no actor (system) and keeps the requester", async () => {
    const sub = SUBS.driverReconciler;
    await c.admin("/pause", { paused: true });
    actAs(requester);
    const pending = (await refundAction(refundForm(sub, 1, "2.00", "10.00"))) as Ok;
    expect(pending).toMatchObject({ ok: true, data: { state: "pending" } });
    await c.admin("/pause", { paused: false });
    await c.t.db
      .updateTable("refund_attempt")
      .set({ last_called_at: new Date(Date.now() - 5 * 60_000) })
      .where("id", "=", pending.data.attemptId)
      .execute();
    expect((await reconcilePendingRefunds(c.t.db, { attemptId: pending.data.attemptId })).outcomes).toEqual([
      { id: pending.data.attemptId, state: "succeeded" },
    ]);
    const calls = (await auditOf(sub)).filter((a) => a.action === "refund.call");
    expect(calls.map((a) => [a.outcome, a.actor_email])).toEqual([
      ["pending_retry", REQUESTER],
      ["succeeded", null],
    ]);
    expect(calls[1]?.detail).toMatchObject({ source: "reconciler", requested_by: REQUESTER });
  });
});
