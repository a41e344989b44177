"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { type Db, getDb } from "@/db";
import { findRefundAttempt } from "@/db/queries/refunds";
import { defineAction, redrawnOnConflict } from "@/lib/actions";
import { hasRole } from "@/lib/auth/roles";
import { AppError } from "@/lib/errors";
import { formatUsdText, formatUtcDateTime } from "@/lib/format";
import { requireSelectedGame } from "@/lib/games/games";
import { unappliedPriceWarning } from "@/lib/lookup/price-change";
import { money } from "@/lib/money";
import {
  describeOverLimit,
  driveRefundAttempt,
  exceedsSupportLimit,
  previewRefund,
  readSupportLimitStanding,
  requestRefund,
  type RefundOutcome,
} from "@/lib/refunds/attempts";
import { refuseWhileOpen } from "@/lib/refunds/open-attempt";
import { PAGE_READ_CLIENT } from "@/lib/service/client";
import { stagedPriceSeen } from "@/lib/lookup/subscription-seen";
import { cancelSubscription, changeSubscriptionAmount, changeSubscriptionPaymentMethod } from "@/lib/refunds/changes";
import type { RefundImpact } from "@/lib/refunds/impact";
import { resolveRefund } from "@/lib/refunds/resolve";
import type { RefundAttemptStatus } from "@/db/types";
import {
  attemptIdSchema,
  cancelInputSchema,
  changeAmountInputSchema,
  changePaymentMethodInputSchema,
  confirmRefundInputSchema,
  previewRefundInputSchema,
} from "./schemas";

export type RefundActionData = { attemptId: string; state: RefundOutcome["state"] };

function refundResult(outcome: RefundOutcome) {
  revalidatePath("/subscriptions", "layout");
  return {
    ok: true as const,
    message: outcome.message,
    data: { attemptId: outcome.attempt.id, state: outcome.state } satisfies RefundActionData,
  };
}

/** What a refund would do, from the period as the service reports it now. Read-only. */
export const previewRefundAction = defineAction(
  {
    name: "previewRefund",
    role: "support",
    input: previewRefundInputSchema,
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    // Read as a page reads (about 20 s at most): nothing is sent, and the person waits for it.
    const { impact } = await previewRefund(
      db,
      game.id,
      {
        periodId: input.periodId,
        subscriptionId: input.subscriptionId,
        amountUsd: input.mode === "partial" ? (input.amountUsd ?? null) : null,
      },
      PAGE_READ_CLIENT,
    );
    try {
      await refuseWhileOpen(db, {
        gameId: game.id,
        subscriptionId: impact.subscriptionId,
        periodSeq: impact.periodSeq,
      });
    } catch (error) {
      // The page was opened before that refund was made: it shows it once reloaded.
      revalidatePath("/subscriptions", "layout");
      throw error;
    }
    if (impact.refundable && money(impact.amountUsd).gt(money(impact.remainingUsd))) {
      throw new AppError(
        "INVALID_INPUT",
        `must be at most the remaining refundable ${formatUsdText(impact.remainingUsd)}`,
        { field: "amountUsd" },
      );
    }
    // Said at review already; the refund itself checks (and records a refusal) again when it is confirmed.
    if (impact.refundable && !hasRole(user.role, "finance")) {
      const standing = await readSupportLimitStanding(db, {
        gameId: game.id,
        subscriptionId: impact.subscriptionId,
        periodSeq: impact.periodSeq,
      });
      if (exceedsSupportLimit(standing, impact.amountUsd)) {
        throw new AppError("FORBIDDEN", describeOverLimit(standing, impact.amountUsd), { field: "amountUsd" });
      }
    }
    return { ok: true, data: impact satisfies RefundImpact };
  },
);

/** Refusals that are about the amount: the person goes back to the amount with the new remaining figure. */
const AMOUNT_ERROR_CODES: ReadonlySet<string> = new Set(["AMOUNT_EXCEEDS_REMAINING", "PERIOD_CHANGED"]);

/** Makes the refund the person confirmed; safe to submit twice (same intent, same attempt, same key). */
export const refundAction = defineAction(
  {
    name: "refund",
    role: "support",
    input: confirmRefundInputSchema,
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    // A period that changed since the review: the page shows the new remaining amount when the person goes back.
    const outcome = await redrawnOnConflict("/subscriptions", () =>
      requestRefund(
        db,
        {
          gameId: game.id,
          subscriptionId: input.subscriptionId,
          periodId: input.periodId,
          periodSeq: input.periodSeq,
          amountUsd: input.amountUsd,
          remainingBeforeUsd: input.remainingBeforeUsd,
          reason: input.reason,
        },
        { id: user.id, email: user.email, role: user.role },
      ),
    );
    if (outcome.state === "failed") {
      revalidatePath("/subscriptions", "layout");
      const amountError =
        outcome.attempt.lastErrorCode !== null && AMOUNT_ERROR_CODES.has(outcome.attempt.lastErrorCode);
      throw new AppError("CONFLICT", outcome.message, { field: amountError ? "amountUsd" : undefined });
    }
    return refundResult(outcome);
  },
);

/** Why an attempt was not marked settled: a colleague settled it first (saying how), or it needs no settling. */
async function notSettledWhy(db: Db, gameId: string, attemptId: string): Promise<string> {
  const now = await findRefundAttempt(db, gameId, attemptId);
  if (now?.status === "resolved") {
    const found =
      now.resolutionOutcome === "refunded" ? `${formatUsdText(now.amountUsd)} refunded` : "nothing refunded";
    const at = now.completedAt ? ` at ${formatUtcDateTime(now.completedAt.toISOString())}` : "";
    return (
      `${now.resolvedBy ?? "Someone"} settled this attempt first${at}, finding ${found} ` +
      `(their note: “${now.resolutionNote ?? ""}”). Nothing was changed; if what you found differs, look into it ` +
      "with them and the service."
    );
  }
  return "Only an attempt that needs manual attention can be marked settled.";
}

/** Why a refund a person asked to retry was not called again: it settled meanwhile (the reconciler, a colleague). */
const settledBeforeRetry: Record<Exclude<RefundAttemptStatus, "pending">, string> = {
  succeeded: "This refund went through meanwhile (the page shows its receipt once reloaded): nothing more was sent.",
  failed: "The service refused this refund meanwhile: nothing was refunded and nothing more was sent. Reload the page.",
  needs_attention:
    "This refund needs manual attention now: nothing more was sent. A finance user settles it after checking with " +
    "the service.",
  resolved: "This refund was settled by hand meanwhile: nothing more was sent. Reload the page to see how.",
};
/** A failed attempt that never reached the service (the period changed, or it could not be sent in time). */
const UNSENT_BEFORE_RETRY =
  "This refund ended meanwhile without being sent to the service: nothing was refunded. Reload the page to see why, " +
  "then review the refund again from the period page.";

/** Calls the service again for a pending attempt, with its stored key and parameters. */
export const retryRefundAttemptAction = defineAction(
  { name: "retryRefundAttempt", role: "support", input: z.object({ attemptId: attemptIdSchema }) },
  async ({ attemptId }, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const attempt = await findRefundAttempt(db, game.id, attemptId);
    if (!attempt) throw new AppError("NOT_FOUND", "No such refund attempt for the selected game.");
    if (attempt.status !== "pending")
      throw new AppError(
        "CONFLICT",
        attempt.status === "failed" && attempt.calls === 0 ? UNSENT_BEFORE_RETRY : settledBeforeRetry[attempt.status],
      );
    const outcome = await driveRefundAttempt(db, attempt, {
      source: "desk",
      driver: { id: user.id, email: user.email },
    });
    if (outcome.state === "failed") {
      revalidatePath("/subscriptions", "layout");
      throw new AppError("CONFLICT", outcome.message);
    }
    return refundResult(outcome);
  },
);

/** Closes an attempt that needed manual attention, once a person has settled it with the service. */
export const resolveRefundAttemptAction = defineAction(
  {
    name: "resolveRefundAttempt",
    role: "finance",
    input: z
      .object({
        attemptId: attemptIdSchema,
        // What the service confirmed: the limit counts a refund that moved, and one that did not frees its intent.
        outcome: z.enum(["refunded", "not_refunded"], { message: "say whether the service refunded it" }),
        note: z
          .string()
          .trim()
          .min(5, { message: "say what was found (at least 5 characters)" })
          .max(1000, { message: "must be at most 1000 characters" }),
        // "Nothing was refunded" lets the same refund be made again: the form asks once more, and says it did.
        confirm: z.literal("confirmed").optional(),
      })
      .refine((v) => v.outcome !== "not_refunded" || v.confirm === "confirmed", {
        message: "confirm that nothing was refunded: the same refund can then be made again",
        path: ["outcome"],
      }),
  },
  async ({ attemptId, outcome, note }, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const resolved = await resolveRefund(
      db,
      { gameId: game.id, attemptId, outcome, note },
      { actor: user, via: "web" },
    );
    // Settled meanwhile (by someone else, or the service answered): the page is drawn again as it stands, either way.
    revalidatePath("/subscriptions", "layout");
    if (!resolved) throw new AppError("CONFLICT", await notSettledWhy(db, game.id, attemptId));
    return {
      ok: true,
      message:
        outcome === "refunded"
          ? `Marked as settled: ${formatUsdText(resolved.amountUsd)} was refunded. ` +
            "It counts as refunded; repeating it is not possible."
          : "Marked as settled: nothing was refunded. The period can be refunded again if needed.",
    };
  },
);

export const cancelSubscriptionAction = defineAction(
  {
    name: "cancelSubscription",
    role: "support",
    input: cancelInputSchema,
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await cancelSubscription(
      db,
      {
        gameId: game.id,
        subscriptionId: input.subscriptionId,
        atPeriodEnd: input.when === "period_end",
        reason: input.reason,
        seen: input.seen,
      },
      { actor: { id: user.id, email: user.email }, via: "web" },
    );
    revalidatePath("/subscriptions", "layout");
    if (result.already_canceled) {
      return { ok: true, message: `Already ${result.final_status}: nothing changed.` };
    }
    const until = result.access_until
      ? `Access until ${formatUtcDateTime(result.access_until) ?? result.access_until}.`
      : "Access ends now.";
    const how = result.terminated_immediately
      ? `Ended immediately: no paid period was running${
          result.downgrade_reason ? ` (service code ${result.downgrade_reason})` : ""
        }.`
      : result.cancel_at_period_end
        ? "Cancels at the end of the paid period; no further charge."
        : "Canceled now.";
    return { ok: true, message: `${how} ${until}` };
  },
);

export const changeAmountAction = defineAction(
  {
    name: "changeSubscriptionAmount",
    role: "finance",
    input: changeAmountInputSchema,
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await changeSubscriptionAmount(
      db,
      { gameId: game.id, subscriptionId: input.subscriptionId, amountUsd: input.amountUsd, seen: input.seen },
      { actor: { id: user.id, email: user.email }, via: "web" },
    );
    revalidatePath("/subscriptions", "layout");
    if (!result.change_queued) {
      // "Sending the current price clears a staged change": say so when the page showed one.
      const cleared = stagedPriceSeen(input.seen);
      const stays = `the price stays ${formatUsdText(result.new_amount_usd)}`;
      return {
        ok: true,
        message: cleared
          ? `The staged change to ${formatUsdText(cleared)} was cleared: ${stays}.`
          : `No change staged: ${stays}.`,
      };
    }
    const staged = result.pending_amount_usd ?? result.new_amount_usd;
    const unapplied = unappliedPriceWarning(money(staged), money(result.old_amount_usd));
    return {
      ok: true,
      message:
        `${formatUsdText(result.old_amount_usd)} → ${formatUsdText(staged)}, staged for the next successful renewal` +
        `${result.applies_from_period_seq ? ` (period ${result.applies_from_period_seq})` : ""}.` +
        (unapplied ? ` ${unapplied}` : ""),
    };
  },
);

export const changePaymentMethodAction = defineAction(
  {
    name: "changePaymentMethod",
    role: "finance",
    input: changePaymentMethodInputSchema,
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await changeSubscriptionPaymentMethod(
      db,
      {
        gameId: game.id,
        subscriptionId: input.subscriptionId,
        playerCardId: input.cardId,
        walletOnly: input.walletOnly === "keep" ? null : input.walletOnly === "yes",
        seen: input.seen,
      },
      { actor: { id: user.id, email: user.email }, via: "web" },
    );
    revalidatePath("/subscriptions", "layout");
    if (!result.card && result.wallet_only)
      return {
        ok: true,
        message: `${result.replaced ? "Card removed" : "Payment method set"}: wallet only, from the next charge.`,
      };
    const card = result.card ? `${result.card.brand} •••• ${result.card.last_four}` : "no card";
    return {
      ok: true,
      message:
        `${result.replaced ? "Card replaced" : "Payment method set"}: ${card}` +
        `${result.wallet_only ? ", wallet only" : ""}. Used from the next charge.`,
    };
  },
);
