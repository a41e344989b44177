import { sql } from "kysely";
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
import { type Ok, type Fail, refundForm, refundReaders } from "./helpers";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/headers.js", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

const { refundAction, retryRefundAttemptAction } = await import("@/app/(desk)/subscriptions/actions");
const { findRefundAttempt } = await import("@/db/queries/refunds");
const { requestRefund } = await import("@/lib/refunds/attempts");

let c: RefundTestContext;
beforeAll(async () => {
  c = await startRefundTest();
});
afterAll(async () => c?.close());
const { auditOf, storeAttempt } = refundReaders(() => c);

describe("L4: the service's reduced 'already processed' answer is confirmed against the period", () => {
  it("a lost receipt is accepted once the period lists that transaction with this amount", async () => {
    const sub = SUBS.replayConfirmed;
    const key = "pd-refund-replay-confirmed";
    const made = await c.admin("/refunds", {
      subscription_id: sub,
      period_seq: 2,
      amount_usd: "4.00",
      client_request_id: key,
      reason: "Player asked",
    });
    expect(made.status).toBe(201);
    expect((await c.admin("/receipts/lose", { subscription_id: sub, client_request_id: key })).status).toBe(200);
    const attempt = await storeAttempt({
      subscriptionId: sub,
      seq: 2,
      amountUsd: "4.00",
      remainingBeforeUsd: "10.00",
      refundedToDateUsd: "0.00",
      clientRequestId: key,
      sent: true,
    });

    actAs(c.sessions.support);
    const retried = (await retryRefundAttemptAction(form({ attemptId: attempt.id }))) as Ok;
    expect(retried).toMatchObject({ ok: true, data: { state: "succeeded" } });
    const after = await findRefundAttempt(c.t.db, GAME_ID, attempt.id);
    const event = refundEvents(c.emulator, sub, 2)[0];
    expect(after).toMatchObject({
      status: "succeeded",
      idempotentReplay: true,
      receipt: null,
      transactionId: made.body.transaction_id,
    });
    expect(after?.refundedAt?.toISOString()).toBe(new Date(event!.refundedAt).toISOString());
    expect(refundEvents(c.emulator, sub, 2)).toHaveLength(1);
    const call = (await auditOf(sub)).find((a) => a.action === "refund.call");
    expect(call?.detail).toMatchObject({
      receipt_available: false,
      idempotent_replay: true,
      confirmed_from_period_by: "transaction_id",
    });
  });

  it("an 'already processed' answer whose transaction the period does not list needs manual attention", async () => {
    const sub = SUBS.replayElsewhere;
    const key = "pd-refund-replay-elsewhere";
    // The key was used on another period of the subscription: the service answers with that refund's transaction.
    const other = await c.admin("/refunds", {
      subscription_id: sub,
      period_seq: 1,
      amount_usd: "2.00",
      client_request_id: key,
    });
    expect(other.status).toBe(201);
    await c.admin("/receipts/lose", { subscription_id: sub, client_request_id: key });
    const attempt = await storeAttempt({
      subscriptionId: sub,
      seq: 2,
      amountUsd: "2.00",
      remainingBeforeUsd: "10.00",
      refundedToDateUsd: "0.00",
      clientRequestId: key,
      sent: true,
    });

    actAs(c.sessions.support);
    const retried = (await retryRefundAttemptAction(form({ attemptId: attempt.id }))) as Ok;
    expect(retried).toMatchObject({ ok: true, data: { state: "needs_attention" } });
    expect(retried.message).toContain(`already processed (transaction ${other.body.transaction_id})`);
    expect(retried.message).toContain("It needs manual attention: do not refund again");
    expect(await findRefundAttempt(c.t.db, GAME_ID, attempt.id)).toMatchObject({
      status: "needs_attention",
      lastErrorCode: "REPLAY_UNCONFIRMED",
      transactionId: null,
    });
    expect(refundEvents(c.emulator, sub, 2)).toHaveLength(0);
    expect((await auditOf(sub)).map((a) => `${a.action}:${a.outcome}`)).toEqual(["refund.call:needs_attention"]);
    // The period stays blocked until finance settles it.
    const blocked = (await refundAction(refundForm(sub, 2, "1.00", "10.00"))) as Fail;
    expect(blocked).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(blocked.message).toMatch(/waiting for manual attention/);
  });
});

describe("L10: the player's email comes from the service, never from the form", () => {
  it(
    "[support] a forged playerEmail in the refund form is " + "ignored; the attempt stores the subscription's player",
    async () => {
      const sub = SUBS.email;
      actAs(c.sessions.support);
      const result = (await refundAction(
        refundForm(sub, 1, "1.00", "10.00", { playerEmail: "mallory@elsewhere.test" }),
      )) as Ok;
      expect(result).toMatchObject({ ok: true, data: { state: "succeeded" } });
      expect(await findRefundAttempt(c.t.db, GAME_ID, result.data.attemptId)).toMatchObject({
        playerEmail: PLAYER.email,
      });
    },
  );
});

describe("the instant of a receipt", () => {
  it("is stored as the instant the service wrote, in any ISO 8601 form (a comma fraction, an offset)", async () => {
    const sub = SUBS.longCall;
    let written = "";
    // The service writes the receipt's instant with a comma fraction and an offset, both ISO 8601.
    const commaInstants = async (url: string, init: RequestInit) => {
      const answer = await fetch(url, init);
      if (init.method !== "POST") return answer;
      const body = (await answer.json()) as { refunded_at: string };
      written = body.refunded_at;
      body.refunded_at = `${written.replace(/(\.\d+)?Z$/, "")},25+00:00`;
      return new Response(JSON.stringify(body), { status: answer.status, headers: answer.headers });
    };
    const outcome = await requestRefund(
      c.t.db,
      {
        gameId: GAME_ID,
        subscriptionId: sub,
        periodId: periodIdOf(sub, 1),
        periodSeq: 1,
        amountUsd: "2.00",
        remainingBeforeUsd: "10.00",
        reason: "Player asked",
      },
      { id: "u-support", email: "support@payout-desk.test", role: "support" },
      { client: { fetch: commaInstants } },
    );
    expect(outcome.state).toBe("succeeded");
    const stored = await findRefundAttempt(c.t.db, GAME_ID, outcome.attempt.id);
    const second = Date.parse(written.replace(/(\.\d+)?Z$/, "Z"));
    expect(stored?.refundedAt?.getTime()).toBe(second + 250);
  });
});

describe("a refund confirmed and not sent within the hour", () => {
  it("fails unsent, as the person was told, even once its period reads again", async () => {
    const sub = SUBS.killAfter;
    const attempt = await storeAttempt({
      subscriptionId: sub,
      seq: 1,
      amountUsd: "3.00",
      remainingBeforeUsd: "10.00",
      refundedToDateUsd: "0.00",
      clientRequestId: "pd-refund-late",
    });
    // Confirmed 61 minutes ago by the database's clock; the period reads fine now.
    await sql`update refund_attempt set created_at = now() - interval '61 minutes' where id = ${attempt.id}`.execute(
      c.t.db,
    );
    actAs(c.sessions.support);
    const retried = (await retryRefundAttemptAction(form({ attemptId: attempt.id }))) as Fail;
    expect(retried).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(retried.message).toContain("could not be sent within an hour of its confirmation");
    expect(await findRefundAttempt(c.t.db, GAME_ID, attempt.id)).toMatchObject({
      status: "failed",
      lastErrorCode: "NOT_SENT_IN_TIME",
      lastErrorDetail: { gave_up_unsent: true },
    });
    expect(refundEvents(c.emulator, sub, 1)).toHaveLength(0);
  });
});
