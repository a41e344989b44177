import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { actAs } from "../support/next-request";
import {
  auditLinesOf,
  emulatedSubscription,
  form,
  GAME_ID,
  type RefundTestContext,
  seenOf,
  startRefundTest,
  SUBS,
} from "./setup";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

const { cancelSubscriptionAction } = await import("@/app/(desk)/subscriptions/actions");

let c: RefundTestContext;
beforeAll(async () => {
  c = await startRefundTest();
});
afterAll(async () => c?.close());

type Result = { ok: boolean; code?: string; message?: string };

const auditOf = (subscriptionId: string) => auditLinesOf(c, subscriptionId);
const seen = (id: string) => seenOf(c.emulator, id);
const subscription = (id: string) => emulatedSubscription(c, id);

describe("cancel", () => {
  it("[support] cancels at period end by default: access until paid_through, recorded with its outcome", async () => {
    actAs(c.sessions.support);
    const result = (await cancelSubscriptionAction(
      form({
        subscriptionId: SUBS.cancelEnd,
        seen: await seen(SUBS.cancelEnd),
        when: "period_end",
        reason: "Moving to yearly",
      }),
    )) as Result;
    expect(result).toMatchObject({ ok: true });
    expect(result.message).toMatch(/Cancels at the end of the paid period.*Access until 2026-12-15 00:00 UTC\./);
    expect(subscription(SUBS.cancelEnd).cancelAtPeriodEnd).toBe(true);
    // One line as the call is sent, one with its outcome.
    const [sent, entry] = await auditOf(SUBS.cancelEnd);
    expect(sent).toMatchObject({
      action: "subscription.cancel",
      outcome: "requested",
      detail: { request: { at_period_end: true, reason: "Moving to yearly" } },
    });
    expect(entry).toMatchObject({
      action: "subscription.cancel",
      outcome: "succeeded",
      game_id: GAME_ID,
      detail: {
        request: { at_period_end: true, reason: "Moving to yearly" },
        result: { already_canceled: false, access_until: "2026-12-15T00:00:00Z" },
      },
    });
  });

  it("[support] cancels now; an already canceled subscription answers already canceled", async () => {
    actAs(c.sessions.support);
    const now = (await cancelSubscriptionAction(
      form({ subscriptionId: SUBS.cancelNow, seen: await seen(SUBS.cancelNow), when: "now" }),
    )) as Result;
    expect(now).toMatchObject({ ok: true });
    // Paid through 2026-11-15, before the clock: nothing paid is still running, so access ends now.
    expect(now.message).toMatch(/Canceled now\. Access until 2026-11-20 12:00 UTC\./);
    const again = (await cancelSubscriptionAction(
      form({ subscriptionId: SUBS.canceled, seen: await seen(SUBS.canceled), when: "now" }),
    )) as Result;
    expect(again).toMatchObject({ ok: true, message: "Already canceled: nothing changed." });
    // The log says what happened: nothing, not a cancel by this person.
    expect((await auditOf(SUBS.canceled)).at(-1)).toMatchObject({
      outcome: "nothing_changed",
      detail: { result: { already_canceled: true } },
    });
  });

  it("[viewer] cannot cancel", async () => {
    actAs(c.sessions.viewer);
    expect(
      await cancelSubscriptionAction(
        form({ subscriptionId: SUBS.cancelEnd, seen: await seen(SUBS.cancelEnd), when: "now" }),
      ),
    ).toMatchObject({
      ok: false,
      code: "FORBIDDEN",
    });
  });

  it("an unanswered cancel is recorded as unknown and says to reload before acting again", async () => {
    actAs(c.sessions.support);
    await c.admin("/faults", { route: `/api/subscriptions/${SUBS.price}/cancel`, fault: "500", count: 1 });
    const result = (await cancelSubscriptionAction(
      form({ subscriptionId: SUBS.price, seen: await seen(SUBS.price), when: "now" }),
    )) as Result;
    expect(result).toMatchObject({ ok: false, code: "SERVICE_ERROR" });
    expect(result.message).toMatch(/may or may not have been applied\. Reload/);
    expect(result.message).toMatch(/No change of this subscription is sent for the next 30 seconds/);
    expect((await auditOf(SUBS.price)).map((a) => a.outcome)).toEqual(["requested", "unknown"]);
    // The service may still apply it: a second change sent at once, from a page not showing it yet, would repeat it.
    const again = (await cancelSubscriptionAction(
      form({ subscriptionId: SUBS.price, seen: await seen(SUBS.price), when: "now" }),
    )) as Result;
    expect(again).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(again.message).toMatch(/Another change of this subscription is under way/);
    expect((await auditOf(SUBS.price)).map((a) => a.outcome)).toEqual(["requested", "unknown"]);
    const held = sql<{ left: number }>`select extract(epoch from held_until - now()) as left
      from subscription_change_hold where subscription_id = ${SUBS.price}`;
    const left = Number((await held.execute(c.t.db)).rows[0]?.left);
    expect(left).toBeGreaterThan(15);
    expect(left).toBeLessThanOrEqual(30);
    // 30 seconds later (the hold lapsed) the subscription can be changed again.
    await sql`update subscription_change_hold set held_until = now() - interval '1 second'
      where subscription_id = ${SUBS.price}`.execute(c.t.db);
  });

  it("a cancellation at the period's end of one already ending is refused, nothing sent", async () => {
    actAs(c.sessions.support);
    const before = await auditOf(SUBS.cancelEnd);
    expect(subscription(SUBS.cancelEnd).cancelAtPeriodEnd).toBe(true);
    const result = (await cancelSubscriptionAction(
      form({ subscriptionId: SUBS.cancelEnd, seen: await seen(SUBS.cancelEnd), when: "period_end" }),
    )) as Result;
    expect(result).toMatchObject({
      ok: false,
      code: "CONFLICT",
      message: "It is already set to end at the end of its paid period. Nothing was sent.",
    });
    expect(await auditOf(SUBS.cancelEnd)).toHaveLength(before.length);
  });
});
