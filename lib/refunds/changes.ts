import "server-only";
import type { Db } from "@/db";
import { randomUUID } from "node:crypto";
import { holdSubscriptionForChange, releaseSubscriptionHold, renewSubscriptionHold } from "@/db/queries/refund-leases";
import { recordAudit, recordAuditAfterTheFact } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { ENDING_CHANGE_REFUSAL, PCSTORE_CARD_REFUSAL, priceChangeRefusal } from "@/lib/lookup/price-change";
import { formatUsd, money } from "@/lib/money";
import { answeredForAnotherGame } from "@/lib/service/answered-game";
import { describeServiceFailure, isServiceError } from "@/lib/service/errors";
import { serviceClientForGame } from "@/lib/service/for-game";
import type {
  CancelSubscriptionResponse,
  ChangeAmountResponse,
  ChangePaymentMethodResponse,
  Subscription,
} from "@/lib/service/schemas";
import { SUBSCRIPTION_CHANGED, subscriptionSeen } from "@/lib/lookup/subscription-seen";
import { describeChangeFailure } from "./messages";
import type { Actor, Via } from "@/core/actor";

/**
 * Cancel, price change and card change. The service takes no idempotency key for these, so the client sends each
 * once; every call is recorded in the audit log as it is sent (outcome "requested": a line the database will not take
 * sends nothing), then with its outcome, "unknown" when the service did not answer (the error log holds an outcome line
 * the database would not take, so a change the service made is never reported as failed).
 */

/**
 * How long a change holds its subscription at a time: the check's read, then again from just before the call, each
 * allowed its attempts of 20 s and the waits a 429 asks of every process. A hold whose process died lapses after it.
 */
const CHANGE_HOLD_MS = 10 * 60_000;

/**
 * How long a change the service did not confirm (a timeout, a 5xx: it may have been applied) keeps its subscription
 * held: a second change sent at once, from a page that does not show the first yet, would repeat it (a second cancel
 * event) or undo it.
 */
const UNCONFIRMED_HOLD_MS = 30_000;

/** A change the service may or may not have applied: its hold is kept a while, not ended. */
class UnconfirmedChange extends AppError {}

/**
 * Runs one change of a subscription while no other change of it runs on any instance: two changes at once (a price set
 * by two people, a cancel beside a price change) would each pass the check of what its page showed, and both be told
 * done though the service kept only the last. The second is refused, sending nothing. The hold is a row, held without
 * a connection while the service answers; the change renews it just before its call (`stillHeld`), and is refused,
 * nothing sent, if its check took so long that the hold lapsed.
 */
async function oneChangeAtATime<T>(
  db: Db,
  gameId: string,
  subscriptionId: string,
  change: (stillHeld: () => Promise<void>) => Promise<T>,
) {
  const hold = { gameId, subscriptionId, token: randomUUID() };
  if (!(await holdSubscriptionForChange(db, { ...hold, holdMs: CHANGE_HOLD_MS })))
    throw new AppError(
      "CONFLICT",
      "Another change of this subscription is under way (a colleague, another tab, or a press a moment ago): nothing " +
        "was sent. Look at it again in a moment: the page then shows what was changed.",
    );
  const stillHeld = async () => {
    if (!(await renewSubscriptionHold(db, { ...hold, holdMs: CHANGE_HOLD_MS })))
      throw new AppError(
        "CONFLICT",
        "The service was so slow to give the subscription that this change's turn lapsed: nothing was sent. Look at " +
          "the subscription again before changing it.",
      );
  };
  let unconfirmed = false;
  try {
    return await change(stillHeld);
  } catch (error) {
    unconfirmed = error instanceof UnconfirmedChange;
    throw error;
  } finally {
    // A hold not ended (the database gone meanwhile) lapses on its own; the change's own outcome stands.
    const end = unconfirmed
      ? renewSubscriptionHold(db, { ...hold, holdMs: UNCONFIRMED_HOLD_MS })
      : releaseSubscriptionHold(db, hold);
    await end.catch((error: unknown) =>
      log.warn("a subscription change's hold was not ended", { game: gameId, subscription: subscriptionId, error }),
    );
  }
}

type ChangeEntry = {
  actor: Actor;
  via: Via;
  action: "subscription.cancel" | "subscription.change_amount" | "subscription.change_payment_method";
  gameId: string;
  subscriptionId: string;
  request: Record<string, unknown>;
  /** What the page showed of the subscription (subscriptionSeen): refused before the call when it moved since. */
  seen?: string;
  /** Why the service would refuse this change, or it would change nothing, as the subscription stands: not sent. */
  refuse?: (subscription: Subscription) => string | null;
};
/** Who asks for a change, and through what (a person on the pages). */
export type ChangeActing = { actor: Actor; via: Via };

type Call<T> = (client: Awaited<ReturnType<typeof serviceClientForGame>>) => Promise<T>;

function runChange<T>(db: Db, entry: ChangeEntry, call: Call<T>, summarize: (result: T) => Record<string, unknown>) {
  return oneChangeAtATime(db, entry.gameId, entry.subscriptionId, (stillHeld) =>
    applyChange(db, entry, { call, stillHeld }, summarize),
  );
}

async function applyChange<T>(
  db: Db,
  entry: ChangeEntry,
  { call, stillHeld }: { call: Call<T>; stillHeld: () => Promise<void> },
  summarize: (result: T) => Record<string, unknown>,
): Promise<T> {
  const client = await serviceClientForGame(db, entry.gameId, { timeoutMs: 20_000 });
  if (entry.seen !== undefined) {
    const subscription = await client.getSubscription(entry.subscriptionId).then(
      (read) => read.subscription,
      (error: unknown) => {
        if (!isServiceError(error)) throw error;
        // What to do next depends on why: a minute's wait, or an admin replacing a rejected secret.
        throw new AppError(
          "SERVICE_ERROR",
          "The service did not give the subscription to check before the change, so nothing was sent: " +
            describeServiceFailure(error),
          { cause: error },
        );
      },
    );
    if (subscription.game_id !== entry.gameId)
      throw new AppError(
        "CONFLICT",
        `${answeredForAnotherGame(subscription.game_id, entry.gameId)}. Nothing was sent.`,
      );
    if (subscriptionSeen(subscription) !== entry.seen) throw new AppError("CONFLICT", SUBSCRIPTION_CHANGED);
    const refused = entry.refuse?.(subscription);
    if (refused) throw new AppError("CONFLICT", `${refused} Nothing was sent.`);
  }
  await stillHeld();
  // Before the call: a process that dies while the service answers still leaves who asked for what. Not written, not
  // sent.
  await recordAudit(db, {
    actor: entry.actor,
    via: entry.via,
    action: entry.action,
    gameId: entry.gameId,
    target: entry.subscriptionId,
    outcome: "requested",
    detail: { request: entry.request },
  });
  let result: T;
  try {
    result = await call(client);
  } catch (error) {
    if (!isServiceError(error)) throw error;
    const failure = describeChangeFailure(error, entry.action === "subscription.cancel" ? "cancel" : "change");
    // The service answered (or may have acted): its outcome is what the person is told, whatever the audit write does.
    await recordAuditAfterTheFact(db, {
      actor: entry.actor,
      via: entry.via,
      action: entry.action,
      gameId: entry.gameId,
      target: entry.subscriptionId,
      outcome: failure.outcomeUnknown ? "unknown" : "failed",
      detail: { request: entry.request, http_status: error.status, error_code: error.code, error_id: error.errorId },
    });
    if (failure.outcomeUnknown)
      throw new UnconfirmedChange(
        "SERVICE_ERROR",
        `${failure.message} No change of this subscription is sent for the next 30 seconds, while the service may ` +
          "still apply it.",
        { cause: error },
      );
    throw new AppError("CONFLICT", failure.message, { cause: error });
  }
  // Applied at the service: a database failing to take its audit line does not make it "failed".
  const summary = summarize(result);
  await recordAuditAfterTheFact(db, {
    actor: entry.actor,
    via: entry.via,
    action: entry.action,
    gameId: entry.gameId,
    target: entry.subscriptionId,
    // A cancel the service found done already (by the player or the game since the check) changed nothing.
    outcome: summary.already_canceled === true ? "nothing_changed" : "succeeded",
    detail: { request: entry.request, result: summary },
  });
  return result;
}

export async function cancelSubscription(
  db: Db,
  input: { gameId: string; subscriptionId: string; atPeriodEnd: boolean; reason: string | null; seen?: string },
  { actor, via }: ChangeActing,
): Promise<CancelSubscriptionResponse> {
  return runChange(
    db,
    {
      actor,
      via,
      action: "subscription.cancel",
      gameId: input.gameId,
      subscriptionId: input.subscriptionId,
      seen: input.seen,
      request: { at_period_end: input.atPeriodEnd, reason: input.reason },
      // A second cancellation at the period's end changes nothing but fires another cancel event to the game.
      refuse: (subscription) =>
        input.atPeriodEnd && subscription.cancel_at_period_end
          ? "It is already set to end at the end of its paid period."
          : null,
    },
    (client) =>
      client.cancelSubscription(input.subscriptionId, {
        atPeriodEnd: input.atPeriodEnd,
        reason: input.reason ?? undefined,
      }),
    (result) => ({
      already_canceled: result.already_canceled,
      access_until: result.access_until ?? null,
      cancel_at_period_end: result.cancel_at_period_end ?? null,
      terminated_immediately: result.already_canceled ? null : (result.terminated_immediately ?? null),
      final_status: result.already_canceled ? result.final_status : (result.subscription.status ?? null),
    }),
  );
}

export async function changeSubscriptionAmount(
  db: Db,
  input: { gameId: string; subscriptionId: string; amountUsd: string; seen?: string },
  { actor, via }: ChangeActing,
): Promise<ChangeAmountResponse> {
  const amountUsd = formatUsd(input.amountUsd);
  return runChange(
    db,
    {
      actor,
      via,
      action: "subscription.change_amount",
      gameId: input.gameId,
      subscriptionId: input.subscriptionId,
      seen: input.seen,
      request: { amount_usd: amountUsd },
      refuse: (subscription) => {
        if (subscription.cancel_at_period_end) return ENDING_CHANGE_REFUSAL;
        const refused = priceChangeRefusal(money(amountUsd), money(subscription.amount_usd), subscription.funding_rail);
        return refused ? `The price ${refused}.` : null;
      },
    },
    (client) => client.changeSubscriptionAmount(input.subscriptionId, { amountUsd }),
    (result) => ({
      old_amount_usd: result.old_amount_usd,
      new_amount_usd: result.new_amount_usd,
      pending_amount_usd: result.pending_amount_usd,
      change_queued: result.change_queued,
      applies_from: result.applies_from,
      applies_from_period_seq: result.applies_from_period_seq,
    }),
  );
}

export async function changeSubscriptionPaymentMethod(
  db: Db,
  input: {
    gameId: string;
    subscriptionId: string;
    playerCardId: number | null;
    walletOnly: boolean | null;
    seen?: string;
  },
  { actor, via }: ChangeActing,
): Promise<ChangePaymentMethodResponse> {
  const request = {
    player_card_id: input.playerCardId,
    wallet_only: input.walletOnly,
  };
  return runChange(
    db,
    {
      actor,
      via,
      action: "subscription.change_payment_method",
      gameId: input.gameId,
      subscriptionId: input.subscriptionId,
      seen: input.seen,
      request,
      // "On a wallet_only subscription, wallet_only false must be passed to convert": a card alone is refused.
      refuse: (subscription) => {
        if (subscription.cancel_at_period_end) return ENDING_CHANGE_REFUSAL;
        if (subscription.funding_rail === "pcstore") return PCSTORE_CARD_REFUSAL;
        if (subscription.wallet_only && input.playerCardId !== null && input.walletOnly === null)
          return "It is wallet only: to pay by this card, choose to leave wallet only.";
        // Made wallet only again, it would change nothing while saying it did.
        if (subscription.wallet_only && input.walletOnly === true) return "It is wallet only already.";
        return null;
      },
    },
    (client) =>
      client.changePaymentMethod(input.subscriptionId, {
        playerCardId: input.playerCardId ?? undefined,
        walletOnly: input.walletOnly ?? undefined,
      }),
    (result) => ({
      replaced: result.replaced,
      wallet_only: result.wallet_only,
      // The card by its id and brand: the audit log is open to viewers, who are not shown a player's cards.
      card: result.card ? { id: result.card.id, brand: result.card.brand } : null,
    }),
  );
}
