import type { Hono } from "hono";
import { money } from "@/lib/money";
import { ApiError } from "../errors";
import { readJsonObject } from "../http/middleware";
import { LIMITS } from "../http/rate-limits";
import { applyRefund, checkRefundable, failAfterCardRefundIssued, resolveRefundPeriod } from "../ledger/refunds";
import { usd } from "../ledger/views";
import type { AppEnv, EmulatorRuntime } from "../runtime";
import { SUBSCRIPTION_ID_PATTERN } from "@/lib/lookup/schemas";
import { parseReason, pathSubscription } from "./subscriptions";

export const MAX_CLIENT_REQUEST_ID = 255;

/**
 * Spec, refund body: "client_request_id (string, required, at most 255, not sub_-prefixed, one per refund, reuse on
 * retry)".
 */
export function parseClientRequestId(value: unknown): string {
  if (value === undefined || value === null || value === "") {
    throw new ApiError(400, "CLIENT_REQUEST_ID_REQUIRED", "client_request_id is required.");
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what a key may not hold.
  if (typeof value !== "string" || value.trim() !== value || /[\u0000-\u001f]/.test(value)) {
    throw new ApiError(
      400,
      "CLIENT_REQUEST_ID_INVALID",
      "client_request_id must be a string without surrounding spaces or control characters.",
    );
  }
  if (value.length > MAX_CLIENT_REQUEST_ID) {
    throw new ApiError(
      400,
      "CLIENT_REQUEST_ID_TOO_LONG",
      `client_request_id is longer than ${MAX_CLIENT_REQUEST_ID} characters.`,
    );
  }
  if (value.toLowerCase().startsWith("sub_")) {
    throw new ApiError(400, "CLIENT_REQUEST_ID_RESERVED", "client_request_id must not begin with sub_.");
  }
  return value;
}

export function registerRefundRoute(api: Hono<AppEnv>, runtime: EmulatorRuntime): void {
  // POST /api/subscriptions/{subscription_id}/refund – refund a billed period, idempotent on client_request_id
  api.post("/api/subscriptions/:id/refund", async (c) => {
    const id = c.req.param("id");
    // Spec: "429 | RATE_LIMITED | More than 20 refund calls per minute on one subscription."
    if (SUBSCRIPTION_ID_PATTERN.test(id)) {
      runtime.limiter.hit(
        `refund:${c.get("game").gameId}:${id}`,
        LIMITS.refundPerSubscription,
        "RATE_LIMITED",
        "More than 20 refund calls per minute on this subscription.",
      );
    }
    const sub = pathSubscription(runtime, c);
    const body = await readJsonObject(c, "INVALID_BODY");
    const clientRequestId = parseClientRequestId(body.client_request_id);
    const ledger = runtime.ledger;
    const stored = ledger.receipts.get(ledger.receiptKey(sub.gameId, sub.subscriptionId, clientRequestId));
    if (stored) {
      // Spec: "A repeated client_request_id returns the stored receipt with idempotent_replay true, or, if the receipt
      // was lost, a reduced body with transaction_id and a note that the refund was already processed."
      if (stored.lost) {
        return c.json({
          status: "refunded",
          idempotent_replay: true,
          client_request_id: clientRequestId,
          transaction_id: stored.transactionId,
          note: "This refund was already processed; its receipt is no longer available.",
        });
      }
      return c.json({ ...stored.body, idempotent_replay: true });
    }
    const seq = body.period_seq;
    if (seq !== undefined && seq !== null && (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1)) {
      throw new ApiError(400, "INVALID_PERIOD_SEQ", "period_seq must be an integer of at least 1.");
    }
    const rawAmount = body.amount_usd;
    let amount = null;
    if (rawAmount !== undefined && rawAmount !== null) {
      if (typeof rawAmount !== "string" || !/^\d{1,9}(\.\d{1,2})?$/.test(rawAmount) || money(rawAmount).lte(0)) {
        throw new ApiError(
          400,
          "INVALID_AMOUNT",
          "amount_usd must be a decimal string greater than 0 with at most two decimals.",
        );
      }
      amount = money(rawAmount);
    }
    const reason = parseReason(body.reason);
    // Spec: "503 | service_unavailable, FLOW_PAUSED | Temporary or maintenance pause; retry with the same key."
    if (ledger.paused)
      throw new ApiError(503, "FLOW_PAUSED", "Refunds are paused for maintenance; retry with the same key.");
    const period = resolveRefundPeriod(sub, typeof seq === "number" ? seq : null);
    checkRefundable(period);
    const remaining = period.amountUsd.minus(period.refundedTotalUsd);
    if (amount?.gt(remaining)) {
      throw new ApiError(400, "AMOUNT_EXCEEDS_REMAINING", "amount_usd is more than the remaining refundable amount.", {
        remaining_refundable_usd: usd(remaining),
        already_refunded_usd: usd(period.refundedTotalUsd),
      });
    }
    failAfterCardRefundIssued(ledger, period, amount);
    const outcome = applyRefund(ledger, period, {
      at: ledger.now,
      amountUsd: amount,
      clientRequestId,
      reason,
      receipt: true,
      live: true,
    });
    return c.json(outcome.receipt);
  });
}
