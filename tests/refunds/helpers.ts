import { expect } from "vitest";
import { insertRefundAttempt } from "@/db/queries/refunds";
import { refundIntentKey } from "@/lib/refunds/intent";
import { form, GAME_ID, periodIdOf, PLAYER, refundEvents, type RefundTestContext } from "./setup";

/** What the refund tests share: the users, the forms the refund screen submits, and readers of what was stored. */

/** Users with known emails, so the audit log can be read by who did what. */
/** Users with known emails, so the audit log can be read by who did what. */
export const REQUESTER = "requester.support@payout-desk.test";
export const SECOND_TAB = "second-tab.support@payout-desk.test";
export const RETRIER = "retrier.finance@payout-desk.test";

export type Ok = { ok: true; message?: string; data?: any };
export type Fail = { ok: false; code: string; message: string; fieldErrors?: Record<string, string> };

export function refundForm(
  subscriptionId: string,
  seq: number,
  amountUsd: string,
  remainingBeforeUsd: string,
  extra: Record<string, string> = {},
) {
  return form({
    subscriptionId,
    periodId: periodIdOf(subscriptionId, seq),
    periodSeq: seq,
    amountUsd,
    remainingBeforeUsd,
    reason: "Player asked",
    ...extra,
  });
}

export function previewForm(subscriptionId: string, seq: number, amountUsd: string) {
  return form({ subscriptionId, periodId: periodIdOf(subscriptionId, seq), mode: "partial", amountUsd });
}

/** The form the refund screen submits after the review step, with the player's email as a form field. */
export function screenRefundForm(
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

/** The service answers the next refund call of the subscription with a 502 carrying `errorCode`, once. */
export function refuseNextRefund(
  c: RefundTestContext,
  subscriptionId: string,
  errorCode: string,
  more: { fault?: "502" | "503"; errorCodePublic?: string } = {},
) {
  return c.admin("/faults", {
    route: `/api/subscriptions/${subscriptionId}/refund`,
    fault: more.fault ?? "502",
    error_code: errorCode,
    ...(more.errorCodePublic ? { error_code_public: more.errorCodePublic } : {}),
    count: 1,
  });
}

/** Readers of the test database and the emulator, for the context the test file started (`c`, set in beforeAll). */
export function refundReaders(context: () => RefundTestContext) {
  async function attemptsOf(subscriptionId: string) {
    return context()
      .t.db.selectFrom("refund_attempt")
      .selectAll()
      .where("subscription_id", "=", subscriptionId)
      .orderBy("created_at")
      .execute();
  }

  async function auditOf(subscriptionId: string) {
    return context()
      .t.db.selectFrom("audit_log")
      .select(["action", "outcome", "idempotency_key", "actor_email", "game_id", "detail"])
      .where("target", "like", `${subscriptionId}%`)
      .orderBy("id")
      .execute();
  }

  function amounts(subscriptionId: string, seq: number): string[] {
    return refundEvents(context().emulator, subscriptionId, seq).map((e) => e.amountUsd.toFixed(2));
  }

  /** A stored attempt as the refund screen would have stored it; `sent` makes it one whose call already went out. */
  async function storeAttempt(input: {
    subscriptionId: string;
    seq: number;
    amountUsd: string;
    remainingBeforeUsd: string;
    refundedToDateUsd: string;
    clientRequestId: string;
    sent?: boolean;
  }) {
    const attempt = await insertRefundAttempt(context().t.db, {
      gameId: GAME_ID,
      subscriptionId: input.subscriptionId,
      periodSeq: input.seq,
      periodId: periodIdOf(input.subscriptionId, input.seq),
      playerEmail: PLAYER.email,
      amountUsd: input.amountUsd,
      remainingBeforeUsd: input.remainingBeforeUsd,
      isFull: false,
      reason: "Player asked",
      clientRequestId: input.clientRequestId,
      intentKey: refundIntentKey({
        gameId: GAME_ID,
        subscriptionId: input.subscriptionId,
        periodSeq: input.seq,
        amountUsd: input.amountUsd,
        remainingBeforeUsd: input.remainingBeforeUsd,
      }),
      actor: { id: "u-requester", email: REQUESTER, role: "support" },
      impact: { refundedToDateUsd: input.refundedToDateUsd, remainingUsd: input.remainingBeforeUsd },
    });
    expect(attempt).not.toBeNull();
    if (input.sent) {
      // Sent, and the process died before the answer was stored: the hold has run out.
      await context()
        .t.db.updateTable("refund_attempt")
        .set({
          calls: 1,
          period_checked_at: new Date(Date.now() - 11 * 60_000),
          last_called_at: new Date(Date.now() - 10 * 60_000),
          claimed_until: new Date(Date.now() - 1000),
        })
        .where("id", "=", attempt!.id)
        .execute();
    }
    return attempt!;
  }
  return { attemptsOf, auditOf, amounts, storeAttempt };
}
