import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { saveGame } from "@/lib/games/games";
import { actAs } from "../support/next-request";
import {
  form,
  GAME_ID,
  GAME_SECRET,
  periodIdOf,
  refundEvents,
  type RefundTestContext,
  startRefundTest,
  SUBS,
} from "./setup";
import { type Ok, type Fail, previewForm, refundReaders, refuseNextRefund, screenRefundForm } from "./helpers";

vi.mock("next/headers", () => import("../support/next-request"));
/** The paths server actions asked Next.js to draw again, in order. */
const revalidated = vi.hoisted(() => [] as string[]);
vi.mock("next/cache", () => ({
  revalidatePath: (path: string) => {
    revalidated.push(path);
  },
  revalidateTag: () => {},
}));

const { previewRefundAction, refundAction, resolveRefundAttemptAction, retryRefundAttemptAction } = await import(
  "@/app/(desk)/subscriptions/actions"
);
const { reconcilePendingRefunds } = await import("@/lib/refunds/reconcile");
const { findRefundAttempt } = await import("@/db/queries/refunds");
const { requestRefund } = await import("@/lib/refunds/attempts");

let c: RefundTestContext;
beforeAll(async () => {
  c = await startRefundTest();
});
afterAll(async () => c?.close());
const { attemptsOf, auditOf } = refundReaders(() => c);

describe("refunds against the emulator", () => {
  it("over-refund: the service's AMOUNT_EXCEEDS_REMAINING reaches the screen with the remaining amount", async () => {
    actAs(c.sessions.support);
    // The service stays unavailable through every in-call retry: the attempt is kept pending with its key.
    await c.admin("/faults", { route: `/api/subscriptions/${SUBS.exceeds}/refund`, fault: "503", count: 5 });
    const first = (await refundAction(screenRefundForm(SUBS.exceeds, 3, "10.00", "12.00"))) as Ok;
    expect(first).toMatchObject({ ok: true, data: { state: "pending" } });
    expect(first.message).toMatch(/temporarily unavailable.*same request id/);
    expect(refundEvents(c.emulator, SUBS.exceeds, 3)).toHaveLength(0);
    // Meanwhile someone refunds 5.00 of the period with the service's own tools.
    await c.admin("/refunds", { subscription_id: SUBS.exceeds, period_seq: 3, amount_usd: "5.00" });
    // Retrying the pending attempt sends the stored 10.00, which is now more than the 7.00 left.
    const retried = (await refundAction(screenRefundForm(SUBS.exceeds, 3, "10.00", "12.00"))) as Fail;
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
    const full = (await refundAction(screenRefundForm(SUBS.exceeds, 3, "7.00", "7.00"))) as Ok;
    expect(full).toMatchObject({ ok: true, data: { state: "succeeded" } });
  });

  it("a second tab that reviewed the period before another refund is sent back to review", async () => {
    actAs(c.sessions.support);
    await c.admin("/refunds", { subscription_id: SUBS.changed, period_seq: 1, amount_usd: "3.00" });
    const stale = (await refundAction(screenRefundForm(SUBS.changed, 1, "3.00", "10.00"))) as Fail;
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
    const refused = (await refundAction(screenRefundForm(SUBS.limit, 2, "30.00", "40.00"))) as Fail;
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
    expect(await refundAction(screenRefundForm(SUBS.limit, 1, "25.00", "40.00"))).toMatchObject({
      ok: true,
      data: { state: "succeeded" },
    });

    actAs(c.sessions.finance);
    expect(await refundAction(screenRefundForm(SUBS.limit, 2, "30.00", "40.00"))).toMatchObject({
      ok: true,
      data: { state: "succeeded" },
    });
    expect(refundEvents(c.emulator, SUBS.limit, 2)).toHaveLength(1);
  });

  it("REFUND_MISMATCH marks the attempt for manual attention, blocks the period, and finance settles it", async () => {
    actAs(c.sessions.support);
    await refuseNextRefund(c, SUBS.attention, "REFUND_MISMATCH");
    const result = (await refundAction(screenRefundForm(SUBS.attention, 3, "10.00", "10.00"))) as Ok;
    expect(result).toMatchObject({ ok: true, data: { state: "needs_attention" } });
    expect(result.message).toMatch(/manual attention: do not refund again/);
    const [attempt] = await attemptsOf(SUBS.attention);
    expect(attempt).toMatchObject({ status: "needs_attention", last_error_code: "REFUND_MISMATCH", calls: 1 });

    // Never retried, and nothing else may be refunded on the period meanwhile.
    expect((await reconcilePendingRefunds(c.t.db, { attemptId: attempt!.id })).examined).toBe(0);
    const other = (await refundAction(screenRefundForm(SUBS.attention, 3, "1.00", "10.00"))) as Fail;
    expect(other).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(other.message).toMatch(/waiting for manual attention/);
    // A period page opened before is told so at review already, not offered a refund it can only be refused.
    const reviewed = (await previewRefundAction(previewForm(SUBS.attention, 3, "1.00"))) as Fail;
    expect(reviewed).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(reviewed.message).toBe(other.message);

    expect(await resolveRefundAttemptAction(form({ attemptId: attempt!.id, note: "no" }))).toMatchObject({
      ok: false,
      code: "FORBIDDEN",
    });
    actAs(c.sessions.finance);
    // "Nothing was refunded" lets the same refund be made again: refused unless the form asked once more.
    expect(
      await resolveRefundAttemptAction(
        form({
          attemptId: attempt!.id,
          outcome: "not_refunded",
          note: "Service confirmed nothing was refunded (ticket 4411).",
        }),
      ),
    ).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
      fieldErrors: { outcome: "confirm that nothing was refunded: the same refund can then be made again" },
    });
    expect(
      await resolveRefundAttemptAction(
        form({
          attemptId: attempt!.id,
          outcome: "not_refunded",
          note: "Service confirmed nothing was refunded (ticket 4411).",
          confirm: "confirmed",
        }),
      ),
    ).toMatchObject({
      ok: true,
    });
    // A colleague settling it from a page drawn before is told who settled it first, as what, and why, and the page is
    // drawn again as it stands (no form left to send again).
    revalidated.length = 0;
    const again = (await resolveRefundAttemptAction(
      form({ attemptId: attempt!.id, outcome: "refunded", note: "The player's bank shows it refunded." }),
    )) as Fail;
    expect(again).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(again.message).toMatch(
      /^\S+@\S+ settled this attempt first at .+, finding nothing refunded \(their note: “/,
    );
    expect(again.message).toContain("(ticket 4411).”). Nothing was changed;");
    expect(revalidated).toEqual(["/subscriptions"]);
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
      const paused = (await refundAction(screenRefundForm(SUBS.unavailable, 2, "1.00", "10.00"))) as Ok;
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
      // A second Retry from a page drawn before: it went through, and nothing more is sent.
      const again = (await retryRefundAttemptAction(form({ attemptId: attempt!.id }))) as { message?: string };
      expect(again).toMatchObject({ ok: false, code: "CONFLICT" });
      expect(again.message).toMatch(/^This refund went through meanwhile .*: nothing more was sent\.$/);
      expect(refundEvents(c.emulator, SUBS.unavailable, 2)).toHaveLength(1);
    },
  );

  it("a pcstore-charged period is shown as not refundable; its wallet-covered period refunds in coins", async () => {
    actAs(c.sessions.support);
    const pcstore = (await previewRefundAction(
      form({ subscriptionId: SUBS.pcstore, periodId: periodIdOf(SUBS.pcstore, 1), mode: "full" }),
    )) as Ok;
    expect(pcstore.data).toMatchObject({ refundable: false, blocker: "pcstore", rail: "pcstore" });
    const refused = (await refundAction(screenRefundForm(SUBS.pcstore, 1, "8.00", "8.00"))) as Fail;
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
    const done = (await refundAction(screenRefundForm(SUBS.pcstore, 2, "8.00", "8.00"))) as Ok;
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
    const bad = (await refundAction(screenRefundForm(SUBS.basic, 1, "1.234", "10.00"))) as Fail;
    expect(bad).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
      fieldErrors: { amountUsd: expect.stringMatching(/two decimals/) },
    });
    const long = (await refundAction(screenRefundForm(SUBS.basic, 1, "1.00", "10.00", "x".repeat(501)))) as Fail;
    expect(long.fieldErrors?.reason).toMatch(/500/);
  });

  it("refuses, sending nothing, a refund of a subscription the service says is another game's", async () => {
    // The same service game saved again under another id: its secret answers for g-refunds, not for the copy.
    const copy = "g-refunds-other";
    const as = { actor: null, via: "cli" as const };
    const game = { name: "Another game", environment: "sandbox" as const, baseUrl: c.emulator.url };
    await saveGame(c.t.db, { id: copy, ...game, secret: GAME_SECRET, webhookSecrets: [] }, { replace: false, as });
    const request = {
      gameId: copy,
      subscriptionId: SUBS.basic,
      periodId: periodIdOf(SUBS.basic, 2),
      periodSeq: 2,
      amountUsd: "1.00",
      remainingBeforeUsd: "10.00",
      reason: "Player asked",
    };
    await expect(
      requestRefund(c.t.db, request, { id: "u1", email: "f@x.test", role: "finance" }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(
        /^The service answered for game g-refunds, not g-refunds-other: .* Nothing was sent\.$/,
      ),
    });
    expect(refundEvents(c.emulator, SUBS.basic, 2)).toHaveLength(0);
    expect(await attemptsOf(SUBS.basic)).toHaveLength(0);
  });

  it("refuses, sending nothing, a refund whose subscription the service does not give (game unconfirmed)", async () => {
    actAs(c.sessions.finance);
    // Every attempt at the subscription's read fails (the first and four retries); the period reads fine.
    await c.admin("/faults", { route: `/api/subscriptions/${SUBS.basic}`, method: "GET", fault: "503", count: 5 });
    const refused = (await refundAction(screenRefundForm(SUBS.basic, 3, "1.00", "10.00"))) as Fail;
    expect(refused).toMatchObject({ ok: false, code: "SERVICE_ERROR" });
    expect(refused.message).toMatch(/^The service did not give the subscription to check before the refund, so /);
    expect(refused.message).toMatch(/nothing was sent: the service is unavailable .*\(HTTP 503/);
    expect(refundEvents(c.emulator, SUBS.basic, 3)).toHaveLength(0);
    expect(await attemptsOf(SUBS.basic)).toHaveLength(0);
  });

  it("[support] a review the service does not answer says so within a page read's two attempts", async () => {
    actAs(c.sessions.support);
    const periodId = periodIdOf(SUBS.basic, 3);
    // Two 503s: a page read's two attempts meet both (the refund call's five would have ridden them out).
    await c.admin("/faults", { route: `/api/subscriptions/reporting/periods/${periodId}`, fault: "503", count: 2 });
    const refused = (await previewRefundAction(
      form({ subscriptionId: SUBS.basic, periodId, mode: "partial", amountUsd: "1.00" }),
    )) as Fail;
    expect(refused).toMatchObject({ ok: false, code: "SERVICE_ERROR" });
    expect(refused.message).toMatch(/^The service did not give the period, so nothing was refunded: /);
    expect(refused.message).toMatch(/the service is unavailable .*\(HTTP 503/);
    expect(refundEvents(c.emulator, SUBS.basic, 3)).toHaveLength(0);
    const reviewed = await previewRefundAction(
      form({ subscriptionId: SUBS.basic, periodId, mode: "partial", amountUsd: "1.00" }),
    );
    expect(reviewed).toMatchObject({ ok: true });
  });

  it("[support] a disputed card charge is not refunded, while the dispute is open or once it is lost", async () => {
    actAs(c.sessions.support);
    const periodId = periodIdOf(SUBS.basic, 1);
    const review = () => previewRefundAction(form({ subscriptionId: SUBS.basic, periodId, mode: "full" }));
    const { body: dispute } = await c.admin("/disputes", { period_id: periodId, emit_events: false });
    const open = (await review()) as Ok;
    expect(open.data).toMatchObject({ refundable: false, blocker: "chargeback" });
    const refused = (await refundAction(screenRefundForm(SUBS.basic, 1, "10.00", "10.00"))) as Fail;
    expect(refused).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(refused.message).toMatch(/^The cardholder disputed this period's card charge .* could pay them twice/);
    // Lost: the report holds nothing any more; the desk's own record of the dispute (from purchase.disputed) says so.
    const closed = await c.admin(`/disputes/${dispute.dispute_id}/close`, {
      dispute_status: "lost",
      emit_events: false,
    });
    expect(closed.status).toBe(200);
    expect(((await review()) as Ok).data).toMatchObject({ refundable: true });
    await c.t.db
      .insertInto("service_dispute")
      .values({ game_id: GAME_ID, dispute_id: dispute.dispute_id, order_id: dispute.order_id, status: "lost" })
      .execute();
    expect(((await review()) as Ok).data).toMatchObject({ refundable: false, blocker: "chargeback" });
    expect(refundEvents(c.emulator, SUBS.basic, 1)).toHaveLength(0);
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
