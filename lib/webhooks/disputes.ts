import "server-only";
import { z } from "zod";
import type { Db } from "@/db";
import { recordDisputeClosed, recordDisputeOpened } from "@/db/queries/disputes";
import { decimalStringSchema } from "@/lib/money";
import { idTextSchema } from "@/lib/service/schema-parts";
import { formatIssues, type WebhookEnvelope } from "@/lib/service/schemas";
import { parseServiceInstant } from "@/lib/time";

/**
 * `purchase.disputed`. Spec, Events: "Chargeback opened; fires again on close with dispute_status won or lost";
 * "opened: order_id, transaction_id, payment_intent_id, charge_id, dispute_id, reason, usd_amount; closed: order_id,
 * dispute_id, dispute_status, currency_debited, new_balance". The closing event is the one whose dispute_status is won
 * or lost; an opening that carries a status of its own ("needs_response") is still an opening, read by its usd_amount.
 *
 * The dispute is stored on its own row; the payout flags find the renewal line it concerns by order_id = the line's
 * mint_order_id, in whatever snapshot holds that line.
 */

const idSchema = idTextSchema.pipe(z.string().min(1).max(255));

/**
 * What the desk needs of an opening is its ids and its amount: a chargeback is recorded (and the renewal it concerns
 * held) whatever else the event carries. The transaction id and the reason, kept for people to read, are dropped when
 * they are not what the spec lists (a reason longer than ever seen is kept whole); the rest is not read.
 */
export const disputeOpenedDataSchema = z.looseObject({
  order_id: idSchema,
  dispute_id: idSchema,
  transaction_id: idSchema.nullable().optional().catch(null),
  reason: z.string().nullable().optional().catch(null),
  usd_amount: decimalStringSchema,
});

export const disputeClosedDataSchema = z.looseObject({
  order_id: idSchema,
  dispute_id: idSchema,
  dispute_status: z.enum(["won", "lost"]),
  currency_debited: decimalStringSchema.nullable().optional(),
  new_balance: decimalStringSchema.nullable().optional(),
});

export type DisputeEffect = Record<string, unknown> & { kind: "dispute" | "unprocessable" };

/** Whether a `purchase.disputed` event's data closes its dispute (else it opens one). */
export function disputeCloses(data: Record<string, unknown>): boolean {
  const status = data.dispute_status;
  return status === "won" || status === "lost" || ("dispute_status" in data && !("usd_amount" in data));
}

export async function applyDisputeEvent(trx: Db, gameId: string, envelope: WebhookEnvelope): Promise<DisputeEffect> {
  const at = new Date(parseServiceInstant(envelope.created_at) ?? Date.now());
  if (disputeCloses(envelope.data)) {
    const parsed = disputeClosedDataSchema.safeParse(envelope.data);
    if (!parsed.success) return { kind: "unprocessable", issues: formatIssues(parsed.error, "data") };
    const d = parsed.data;
    const stored = await recordDisputeClosed(trx, {
      gameId,
      disputeId: d.dispute_id,
      orderId: d.order_id,
      status: d.dispute_status,
      currencyDebited: d.currency_debited ?? null,
      closedAt: at,
      eventId: envelope.event_id,
    });
    return { kind: "dispute", disputeId: d.dispute_id, orderId: d.order_id, status: stored.status };
  }
  const parsed = disputeOpenedDataSchema.safeParse(envelope.data);
  if (!parsed.success) return { kind: "unprocessable", issues: formatIssues(parsed.error, "data") };
  const d = parsed.data;
  const stored = await recordDisputeOpened(trx, {
    gameId,
    disputeId: d.dispute_id,
    orderId: d.order_id,
    transactionId: d.transaction_id ?? null,
    reason: d.reason ?? null,
    usdAmount: d.usd_amount,
    openedAt: at,
    eventId: envelope.event_id,
  });
  // Sent, but not as listed: recorded without it, and the event says which.
  const dropped = (["transaction_id", "reason"] as const).filter(
    (field) => envelope.data[field] !== undefined && envelope.data[field] !== null && d[field] === null,
  );
  return {
    kind: "dispute",
    disputeId: d.dispute_id,
    orderId: d.order_id,
    usdAmount: d.usd_amount,
    status: stored.status,
    ...(dropped.length > 0 ? { dropped } : {}),
  };
}
