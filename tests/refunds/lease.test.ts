import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GAME_ID, periodIdOf, refundEvents, type RefundTestContext, startRefundTest, SUBS } from "./setup";

const { requestRefund, driveRefundAttempt } = await import("@/lib/refunds/attempts");
const { reconcilePendingRefunds } = await import("@/lib/refunds/reconcile");
const { findRefundAttempt } = await import("@/db/queries/refunds");
const { listStalePendingAttempts } = await import("@/db/queries/refund-leases");
const { databaseNowMs } = await import("@/db/queries/scalar");
const { HEARTBEAT_MS, SYSTEM_CLOCK } = await import("@/lib/refunds/lease");

let c: RefundTestContext;
beforeAll(async () => {
  c = await startRefundTest();
});
afterAll(async () => c?.close());

const SUPPORT = { id: "u-support", email: "support@payout-desk.test", role: "support" as const };

/** A clock the test moves: `advance` runs every timer that falls due on the way, one at a time, awaiting each. */
function manualClock(start: number) {
  let now = start;
  const timers: { ms: number; next: number; tick: () => Promise<void> | void; active: boolean }[] = [];
  return {
    now: () => now,
    leaseNow: async () => now,
    every(ms: number, tick: () => Promise<void> | void) {
      const timer = { ms, next: now + ms, tick, active: true };
      timers.push(timer);
      return () => {
        timer.active = false;
      };
    },
    async advance(ms: number) {
      const target = now + ms;
      for (;;) {
        const due = timers.filter((t) => t.active && t.next <= target).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        now = due.next;
        due.next += due.ms;
        await due.tick();
      }
      now = target;
    },
  };
}

/** A fetch whose refund POST waits at a gate the test opens; the request goes out only then. */
function gatedFetch() {
  let entered!: (signal: AbortSignal | null) => void;
  const enteredAt = new Promise<AbortSignal | null>((resolve) => (entered = resolve));
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let posts = 0;
  const fetchThroughGate = async (url: string, init: RequestInit) => {
    if (init.method !== "POST") return fetch(url, init);
    posts += 1;
    entered(init.signal ?? null);
    await new Promise<void>((resolve, reject) => {
      void gate.then(resolve);
      init.signal?.addEventListener("abort", () => reject(init.signal?.reason), { once: true });
    });
    return fetch(url, init);
  };
  return { fetch: fetchThroughGate, enteredAt, open: () => open(), posts: () => posts };
}

/** A refund of `amountUsd` on period `seq` of the long-call subscription, as the review screen sends it. */
function longCallRefund(seq: number, amountUsd: string) {
  const sub = SUBS.longCall;
  return {
    gameId: GAME_ID,
    subscriptionId: sub,
    periodId: periodIdOf(sub, seq),
    periodSeq: seq,
    amountUsd,
    remainingBeforeUsd: "10.00",
    reason: null,
  };
}

/** The id of the attempt stored for period `seq` of the long-call subscription. */
async function longCallAttempt(seq: number): Promise<string> {
  const row = await c.t.db
    .selectFrom("refund_attempt")
    .select(["id"])
    .where("subscription_id", "=", SUBS.longCall)
    .where("period_seq", "=", seq)
    .executeTakeFirstOrThrow();
  return row.id;
}

describe("the hold on a refund attempt outlives its call", () => {
  it(
    "a call running ten minutes keeps the attempt: neither " + "Retry nor the reconciler sends the key meanwhile",
    async () => {
      const sub = SUBS.longCall;
      const clock = manualClock(Date.now());
      const gated = gatedFetch();
      const request = longCallRefund(2, "2.00");
      const running = requestRefund(c.t.db, request, SUPPORT, { clock, client: { fetch: gated.fetch } });
      await gated.enteredAt;
      const row = { id: await longCallAttempt(2) };

      // Far longer than any hold a request takes and than the client's worst case (tries × timeouts + retry_after
      // waits).
      for (let elapsed = 0; elapsed < 10 * 60_000; elapsed += HEARTBEAT_MS) {
        await clock.advance(HEARTBEAT_MS);
        const held = await findRefundAttempt(c.t.db, GAME_ID, row.id);
        expect(held?.status).toBe("pending");
        expect(held?.claimedUntil?.getTime()).toBeGreaterThan(clock.now());
      }

      // A Retry click and the reconciler at this moment both find the attempt held.
      const attempt = (await findRefundAttempt(c.t.db, GAME_ID, row.id))!;
      expect(await driveRefundAttempt(c.t.db, attempt, { clock, waitMs: 0, source: "desk" })).toMatchObject({
        state: "in_progress",
      });
      expect(await reconcilePendingRefunds(c.t.db, { clock })).toEqual({ examined: 0, outcomes: [] });
      expect(refundEvents(c.emulator, sub, 2)).toHaveLength(0);

      gated.open();
      expect(await running).toMatchObject({ state: "succeeded" });
      expect(gated.posts()).toBe(1);
      expect(refundEvents(c.emulator, sub, 2)).toHaveLength(1);
      expect(await findRefundAttempt(c.t.db, GAME_ID, row.id)).toMatchObject({
        status: "succeeded",
        calls: 1,
        claimedUntil: null,
        claimToken: null,
      });
    },
  );

  it(
    "a call whose hold was taken over is stopped at the " + "next heartbeat and records nothing over the new holder",
    async () => {
      const sub = SUBS.longCall;
      const clock = manualClock(Date.now());
      const gated = gatedFetch();
      const request = longCallRefund(3, "1.00");
      const running = requestRefund(c.t.db, request, SUPPORT, { clock, client: { fetch: gated.fetch } });
      const signal = await gated.enteredAt;
      const row = { id: await longCallAttempt(3) };
      // Another request holds the attempt now (as after a hold that ran out).
      await c.t.db
        .updateTable("refund_attempt")
        .set({ claim_token: "00000000-0000-4000-8000-000000000001" })
        .where("id", "=", row.id)
        .execute();
      await clock.advance(HEARTBEAT_MS);
      expect(signal?.aborted).toBe(true);
      gated.open();
      const outcome = await running;
      expect(outcome.state).toBe("pending");
      expect(await findRefundAttempt(c.t.db, GAME_ID, row.id)).toMatchObject({
        status: "pending",
        claimToken: "00000000-0000-4000-8000-000000000001",
      });
      expect(refundEvents(c.emulator, sub, 3)).toHaveLength(0);
    },
  );

  it("a process whose own clock is minutes behind still holds the attempt for the rest of the fleet", async () => {
    const sub = SUBS.longCall;
    // Its holds were once written on its own clock: two minutes behind, a hold of one minute had run out already
    // for every other process, which would call the service with the same attempt meanwhile.
    const behind = { ...SYSTEM_CLOCK, now: () => Date.now() - 120_000 };
    const gated = gatedFetch();
    const request = longCallRefund(1, "1.00");
    const running = requestRefund(c.t.db, request, SUPPORT, { clock: behind, client: { fetch: gated.fetch } });
    await gated.enteredAt;
    const attempt = (await findRefundAttempt(c.t.db, GAME_ID, await longCallAttempt(1)))!;
    expect(attempt.claimedUntil?.getTime()).toBeGreaterThan(Date.now());
    expect(await driveRefundAttempt(c.t.db, attempt, { waitMs: 0, source: "desk" })).toMatchObject({
      state: "in_progress",
    });
    expect(await reconcilePendingRefunds(c.t.db, { attemptId: attempt.id })).toEqual({
      examined: 1,
      outcomes: [{ id: attempt.id, state: "in_progress" }],
    });
    const idle = await listStalePendingAttempts(c.t.db, {
      idleSeconds: 0,
      limit: 100,
      nowMs: await databaseNowMs(c.t.db),
    });
    expect(idle.map((a) => a.id)).not.toContain(attempt.id);
    gated.open();
    expect(await running).toMatchObject({ state: "succeeded" });
    expect(gated.posts()).toBe(1);
    expect(refundEvents(c.emulator, sub, 1)).toHaveLength(1);
  });
});
