import { createHash, randomUUID } from "node:crypto";
import { formatUsd } from "@/lib/money";

/**
 * A refund intent is what the person confirmed: this amount, from this period of this subscription, when that period
 * had this much left to refund. A double click, a resubmitted form or a second tab showing the same period all carry
 * the same intent and so reach the same attempt; once a refund lands the remaining amount changes, so a later refund
 * of the same amount is a new intent.
 */
export type RefundIntent = {
  gameId: string;
  subscriptionId: string;
  periodSeq: number;
  amountUsd: string;
  remainingBeforeUsd: string;
};

export function refundIntentKey(intent: RefundIntent): string {
  const canonical = [
    "refund.v1",
    intent.gameId,
    intent.subscriptionId,
    String(intent.periodSeq),
    formatUsd(intent.amountUsd),
    formatUsd(intent.remainingBeforeUsd),
  ].join("\n");
  return createHash("sha256").update(canonical).digest("hex");
}

/**
 * A fresh client_request_id: "at most 255, not sub_-prefixed, one per refund, reuse on retry". Created once, stored
 * with the attempt before the first call, and read back from the row for every retry.
 */
export function newClientRequestId(): string {
  return `pd-refund-${randomUUID()}`;
}
