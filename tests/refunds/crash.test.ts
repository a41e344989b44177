import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GAME_ID, GAME_SECRET, periodIdOf, type RefundTestContext, startRefundTest, SUBS } from "./setup";

const { reconcilePendingRefunds, STALE_AFTER_SECONDS } = await import("@/lib/refunds/reconcile");
const { driveRefundAttempt } = await import("@/lib/refunds/attempts");
const { findRefundAttempt } = await import("@/db/queries/refunds");
const { LEASE_MS, SYSTEM_CLOCK } = await import("@/lib/refunds/lease");

const ROOT = path.resolve(import.meta.dirname, "../..");

let c: RefundTestContext;
const children = new Set<ChildProcess>();
beforeAll(async () => {
  c = await startRefundTest();
});
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  children.clear();
});
afterAll(async () => c?.close());

const SUPPORT = { id: "u-support", email: "support@payout-desk.test", role: "support" as const };

/** A refund process, and a way to wait for the steps it reports on stdout. */
function startRefundProcess(sub: string, stopAt: "before-call" | "after-answer" | "none") {
  const request = {
    gameId: GAME_ID,
    subscriptionId: sub,
    periodId: periodIdOf(sub, 2),
    periodSeq: 2,
    amountUsd: "3.00",
    remainingBeforeUsd: "10.00",
    reason: "Player asked",
  };
  const child = spawn(
    process.execPath,
    [
      "--import",
      "./bin/register.mjs",
      "tests/refunds/crash-child.ts",
      JSON.stringify({ databaseUrl: c.t.url, request, actor: SUPPORT, stopAt }),
    ],
    { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: "", LOG_LEVEL: "silent" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.add(child);
  const steps: Record<string, unknown>[] = [];
  const waiters: { step: string; resolve: (line: Record<string, unknown>) => void }[] = [];
  let stderr = "";
  let buffered = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>;
      buffered = buffered.slice(nl + 1);
      steps.push(line);
      for (const waiter of waiters.filter((w) => w.step === line.step)) waiter.resolve(line);
    }
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    /** Resolves when the process reports `step`; rejects if it exits first. */
    reached(step: string): Promise<Record<string, unknown>> {
      const seen = steps.find((s) => s.step === step);
      if (seen) return Promise.resolve(seen);
      return Promise.race([
        new Promise<Record<string, unknown>>((resolve) => waiters.push({ step, resolve })),
        exited.then(({ code, signal }) => {
          throw new Error(`refund process exited (${code ?? signal}) before ${step}: ${stderr}`);
        }),
      ]);
    },
    async kill(): Promise<void> {
      child.kill("SIGKILL");
      expect(await exited).toMatchObject({ signal: "SIGKILL" });
    },
  };
}

/** Polls until `check` holds; the condition, not the time, ends the wait (the test's own timeout bounds it). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The reconciler as it runs once the killed process's hold has run out and the attempt has been idle long enough. */
const AFTER_THE_HOLD = {
  now: () => Date.now() + LEASE_MS + STALE_AFTER_SECONDS * 1000 + 1000,
  leaseNow: async () => AFTER_THE_HOLD.now(),
  every: SYSTEM_CLOCK.every,
};

/** The period as the service reports it over HTTP. */
async function periodRefunds(sub: string): Promise<{
  refund_count: number;
  refunded_to_date_usd: string;
  events: { refund_transaction_id: string | null; refunded_amount_usd: string }[];
}> {
  const response = await fetch(`${c.emulator.url}/sandbox/api/subscriptions/reporting/periods/${periodIdOf(sub, 2)}`, {
    headers: { "X-Game-Secret-Key": GAME_SECRET, Accept: "application/json" },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { refunds: never }).refunds;
}

async function attemptOf(sub: string) {
  const rows = await c.t.db.selectFrom("refund_attempt").select(["id"]).where("subscription_id", "=", sub).execute();
  expect(rows).toHaveLength(1);
  return (await findRefundAttempt(c.t.db, GAME_ID, rows[0]!.id))!;
}

/** Exactly one refund at the service, and Payout Desk shows it: the attempt succeeded with the service's receipt. */
async function expectOneRefundShown(sub: string) {
  const refunds = await periodRefunds(sub);
  expect(refunds.refund_count).toBe(1);
  expect(refunds.refunded_to_date_usd).toBe("3.00");
  const attempt = await attemptOf(sub);
  expect(attempt).toMatchObject({ status: "succeeded", amountUsd: "3.00", claimedUntil: null });
  expect(attempt.receipt).toMatchObject({
    status: "refunded",
    client_request_id: attempt.clientRequestId,
    refunded_amount_usd: "3.00",
  });
  expect(attempt.transactionId).toBe(refunds.events[0]?.refund_transaction_id);
  const calls = await c.t.db
    .selectFrom("audit_log")
    .select(["outcome"])
    .where("action", "=", "refund.call")
    .where("idempotency_key", "=", attempt.clientRequestId)
    .execute();
  expect(calls.map((a) => a.outcome)).toEqual(["succeeded"]);
}

describe("a refund process killed (SIGKILL) at each step of its call", () => {
  it("before the call: the reconciler sends it once", async () => {
    const sub = SUBS.killBefore;
    const refund = startRefundProcess(sub, "before-call");
    await refund.reached("before-call");
    await refund.kill();
    expect((await periodRefunds(sub)).refund_count).toBe(0);
    expect(await attemptOf(sub)).toMatchObject({ status: "pending", calls: 1 });

    const summary = await reconcilePendingRefunds(c.t.db, { clock: AFTER_THE_HOLD });
    expect(summary.outcomes).toEqual([{ id: (await attemptOf(sub)).id, state: "succeeded" }]);
    await expectOneRefundShown(sub);
  });

  it("during the call, before the service acted on it: the reconciler sends it once", async () => {
    const sub = SUBS.killDuring;
    await c.admin("/faults", { route: `/api/subscriptions/${sub}/refund`, fault: "hang", count: 1 });
    const refund = startRefundProcess(sub, "none");
    // The request has reached the service, which holds it without acting on it.
    await until(async () => (await c.admin("/faults")).body.faults.length === 0);
    await refund.kill();
    expect((await periodRefunds(sub)).refund_count).toBe(0);

    await reconcilePendingRefunds(c.t.db, { clock: AFTER_THE_HOLD });
    await expectOneRefundShown(sub);
  });

  it(
    "during the call, after the service refunded and before it answered: the reconciler gets the receipt, no second " +
      "refund",
    async () => {
      const sub = SUBS.killCommitted;
      await c.admin("/faults", { route: `/api/subscriptions/${sub}/refund`, fault: "delay", count: 1 });
      const refund = startRefundProcess(sub, "none");
      await until(async () => (await periodRefunds(sub)).refund_count === 1);
      await refund.kill();
      expect(await attemptOf(sub)).toMatchObject({ status: "pending", transactionId: null });

      await reconcilePendingRefunds(c.t.db, { clock: AFTER_THE_HOLD });
      await expectOneRefundShown(sub);
      expect((await attemptOf(sub)).receipt).toMatchObject({ idempotent_replay: true });
    },
  );

  it("after the answer, before it was stored: a Retry gets the receipt again, no second refund", async () => {
    const sub = SUBS.killAfter;
    const refund = startRefundProcess(sub, "after-answer");
    await refund.reached("after-answer");
    await refund.kill();
    expect((await periodRefunds(sub)).refund_count).toBe(1);
    expect(await attemptOf(sub)).toMatchObject({ status: "pending", transactionId: null });

    // A person presses Retry once the hold has run out.
    const outcome = await driveRefundAttempt(c.t.db, await attemptOf(sub), {
      source: "desk",
      driver: SUPPORT,
      clock: AFTER_THE_HOLD,
      waitMs: 0,
    });
    expect(outcome.state).toBe("succeeded");
    await expectOneRefundShown(sub);
  });
});
