import type { Hono } from "hono";
import { z } from "zod";
import { money } from "@/lib/money";
import { ApiError } from "../errors";
import { readJsonObject } from "../http/middleware";
import { applyRefund, checkRefundable, resolveRefundPeriod } from "../ledger/refunds";
import type { AppEnv, EmulatorRuntime } from "../runtime";

import { instantOrThrow, parseBody } from "./admin-parse";

const usdText = z.string().regex(/^\d{1,9}(\.\d{1,2})?$/);

const refundSchema = z.object({
  subscription_id: z.string().min(1),
  period_seq: z.number().int().positive().optional(),
  amount_usd: usdText.optional(),
  refunded_at: z.string().optional(),
  client_request_id: z.string().min(1).max(255).optional(),
  reason: z.string().max(500).optional(),
  receipt: z.boolean().default(true),
  emit_events: z.boolean().default(true),
});

const periodPatchSchema = z.object({
  base_usd: usdText.optional(),
  attributed_amount_usd: usdText.optional(),
  percent_at_renewal: usdText.optional(),
  invo_fee_usd: usdText.optional(),
  partner_revenue_settled_usd: usdText.optional(),
  pass_through_fees_usd: usdText.optional(),
  chargeback_fees_usd: usdText.optional(),
  disputed_amount_held_usd: usdText.optional(),
});

/** Changes to the ledger behind the service's back: drift, refunds at a given time, lost receipts, players, cards. */
export function addLedgerRoutes(admin: Hono<AppEnv>, runtime: EmulatorRuntime): void {
  // PATCH /__emulator/periods/{period_id} – overwrite recorded figures to simulate drift
  admin.patch("/periods/:periodId", async (c) => {
    const body = parseBody(periodPatchSchema, await readJsonObject(c, "ADMIN_INVALID"));
    const period = runtime.ledger.periods.get(Number(c.req.param("periodId")));
    if (!period || period.paidAt === null)
      throw new ApiError(404, "ADMIN_NOT_FOUND", "No settled period with this id.");
    if (body.invo_fee_usd) period.invoFeeUsd = money(body.invo_fee_usd);
    if (body.partner_revenue_settled_usd) period.partnerRevenueSettledUsd = money(body.partner_revenue_settled_usd);
    if (body.pass_through_fees_usd) period.passThroughFeesUsd = money(body.pass_through_fees_usd);
    if (body.chargeback_fees_usd) period.chargebackFeesUsd = money(body.chargeback_fees_usd);
    if (body.disputed_amount_held_usd) period.disputedAmountHeldUsd = money(body.disputed_amount_held_usd);
    if (period.attribution) {
      if (body.percent_at_renewal) period.attribution.percentAtRenewal = money(body.percent_at_renewal);
      if (body.base_usd) period.attribution.baseUsd = money(body.base_usd);
      // Spec: "attributed_amount_usd stays the recorded snapshot even if base_matches_settled_fee is false".
      if (body.attributed_amount_usd) period.attribution.attributedUsd = money(body.attributed_amount_usd);
    }
    return c.json({ status: "patched", period_id: period.periodId });
  });

  // POST /__emulator/refunds – record a refund at a given time (receipt or period row only)
  admin.post("/refunds", async (c) => {
    const body = parseBody(refundSchema, await readJsonObject(c, "ADMIN_INVALID"));
    const ledger = runtime.ledger;
    const sub = ledger.subscriptions.get(body.subscription_id);
    if (!sub) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such subscription.");
    const period = resolveRefundPeriod(sub, body.period_seq ?? null);
    checkRefundable(period);
    const at = body.refunded_at ? instantOrThrow(body.refunded_at, "refunded_at") : ledger.now;
    const latest = period.refunds[period.refunds.length - 1];
    if (at > ledger.now || (period.paidAt !== null && at < period.paidAt) || (latest && at < latest.refundedAt)) {
      throw new ApiError(400, "ADMIN_INVALID", "refunded_at must lie between the period's last event and the clock.");
    }
    const amount = body.amount_usd ? money(body.amount_usd) : null;
    if (amount && (amount.lte(0) || amount.gt(period.amountUsd.minus(period.refundedTotalUsd)))) {
      throw new ApiError(400, "ADMIN_INVALID", "amount_usd exceeds the remaining refundable amount.");
    }
    if (
      body.client_request_id &&
      ledger.receipts.has(ledger.receiptKey(sub.gameId, sub.subscriptionId, body.client_request_id))
    ) {
      throw new ApiError(409, "ADMIN_CONFLICT", "client_request_id already used on this subscription.");
    }
    const outcome = applyRefund(ledger, period, {
      at,
      amountUsd: amount,
      clientRequestId: body.client_request_id ?? null,
      reason: body.reason ?? null,
      receipt: body.receipt,
      live: body.emit_events,
    });
    return c.json(
      {
        status: "recorded",
        period_id: period.periodId,
        transaction_id: outcome.event.transactionId,
        receipt: outcome.receipt,
      },
      201,
    );
  });

  // POST /__emulator/receipts/lose – {subscription_id, client_request_id}: a replay then gets the reduced body
  admin.post("/receipts/lose", async (c) => {
    const body = parseBody(
      z.object({ subscription_id: z.string(), client_request_id: z.string() }),
      await readJsonObject(c, "ADMIN_INVALID"),
    );
    const ledger = runtime.ledger;
    const sub = ledger.subscriptions.get(body.subscription_id);
    const stored = sub
      ? ledger.receipts.get(ledger.receiptKey(sub.gameId, sub.subscriptionId, body.client_request_id))
      : undefined;
    if (!stored) throw new ApiError(404, "ADMIN_NOT_FOUND", "No receipt for this key.");
    stored.lost = true;
    return c.json({ status: "lost" });
  });

  // POST /__emulator/subscriptions/{id}/card-refund-fails-after-issue – the next refund returning card money on it
  // answers 502 PROCESSOR_ERROR after the processor issued it; the next completing refund records it as adopted
  admin.post("/subscriptions/:id/card-refund-fails-after-issue", (c) => {
    const sub = runtime.ledger.subscriptions.get(c.req.param("id"));
    if (!sub) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such subscription.");
    sub.cardRefundFailsAfterIssue = true;
    return c.json({ armed: true });
  });

  // POST /__emulator/subscriptions/{id}/charge-outcomes – {outcomes: ["decline", ...]} for the next charge attempts
  admin.post("/subscriptions/:id/charge-outcomes", async (c) => {
    const body = parseBody(
      z.object({ outcomes: z.array(z.enum(["decline"])).min(1) }),
      await readJsonObject(c, "ADMIN_INVALID"),
    );
    const sub = runtime.ledger.subscriptions.get(c.req.param("id"));
    if (!sub) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such subscription.");
    sub.forcedOutcomes.push(...body.outcomes);
    return c.json({ queued: sub.forcedOutcomes.length });
  });

  // POST /__emulator/players/balance – {game_id, player_id, balance_coins}
  admin.post("/players/balance", async (c) => {
    const body = parseBody(
      z.object({
        game_id: z.string(),
        player_id: z.number().int(),
        balance_coins: z.string().regex(/^-?\d{1,15}(\.\d{1,2})?$/),
      }),
      await readJsonObject(c, "ADMIN_INVALID"),
    );
    const player = runtime.ledger.player(body.game_id, body.player_id);
    if (!player) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such player.");
    player.balanceCoins = money(body.balance_coins);
    player.balanceUpdatedAt = runtime.ledger.now;
    return c.json({ balance_coins: player.balanceCoins.toFixed(2) });
  });

  // POST /__emulator/cards/{card_id}/remove – the card disappears (PAYMENT_METHOD_UNAVAILABLE when attached)
  admin.post("/cards/:cardId/remove", (c) => {
    const card = runtime.ledger.cards.get(Number(c.req.param("cardId")));
    if (!card) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such card.");
    card.removed = true;
    return c.json({ status: "removed" });
  });
}
