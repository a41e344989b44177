import { z } from "zod";
import { subscriptionIdSchema } from "@/lib/lookup/schemas";
import { subscriptionSeenSchema } from "@/lib/lookup/subscription-seen";
import { decimalStringSchema, usdInputSchema } from "@/lib/money";
import { serviceReasonSchema } from "@/lib/service/inputs";

/**
 * The support forms' input schemas (refund, cancel, price and card change), kept out of the "use server" module so
 * that they can be imported and tested. Every format check aborts before a refinement that reads the value.
 */

export { subscriptionIdSchema };
/** Digits only, then a number: "1e3", "0x1F" or a number past what the database stores is no period id. */
export const periodIdSchema = z
  .string({ message: "must be a period id" })
  .trim()
  .regex(/^[1-9]\d{0,14}$/, { message: "must be a period id", abort: true })
  .transform(Number);
/** A period's number within its subscription, as the database keeps it (an integer column). */
const periodSeqSchema = z
  .string({ message: "must be a period number" })
  .trim()
  .regex(/^[1-9]\d{0,8}$/, { message: "must be a period number", abort: true })
  .transform(Number);
export const reasonSchema = z
  .string()
  .trim()
  .pipe(serviceReasonSchema)
  .optional()
  .transform((value) => (value ? value : null));
export { refundAttemptIdSchema as attemptIdSchema } from "@/lib/refunds/schemas";

/** The review step: full, or partial with an amount (checked as an amount only when partial). */
export const previewRefundInputSchema = z
  .object({
    subscriptionId: subscriptionIdSchema,
    periodId: periodIdSchema,
    mode: z.enum(["full", "partial"], { message: "choose full or partial" }),
    amountUsd: z.string().optional(),
    reason: reasonSchema,
  })
  .superRefine((value, ctx) => {
    if (value.mode !== "partial") return;
    const parsed = usdInputSchema.safeParse(value.amountUsd ?? "");
    if (!parsed.success)
      ctx.addIssue({ code: "custom", path: ["amountUsd"], message: parsed.error.issues[0]?.message ?? "is invalid" });
  })
  // The amount as checked (" 12.50 " pasted is 12.50); none for a full refund.
  .transform((value) => ({ ...value, amountUsd: value.mode === "partial" ? value.amountUsd?.trim() : undefined }));

/** The confirm step; the player's email is not read from the form: the attempt takes it from the service. */
export const confirmRefundInputSchema = z.object({
  subscriptionId: subscriptionIdSchema,
  periodId: periodIdSchema,
  periodSeq: periodSeqSchema,
  amountUsd: usdInputSchema,
  remainingBeforeUsd: decimalStringSchema,
  reason: reasonSchema,
});

export const cancelInputSchema = z.object({
  subscriptionId: subscriptionIdSchema,
  seen: subscriptionSeenSchema,
  when: z.enum(["period_end", "now"], { message: "choose at period end or now" }),
  reason: reasonSchema,
});

export const changeAmountInputSchema = z.object({
  subscriptionId: subscriptionIdSchema,
  seen: subscriptionSeenSchema,
  amountUsd: usdInputSchema,
});

export const changePaymentMethodInputSchema = z
  .object({
    subscriptionId: subscriptionIdSchema,
    seen: subscriptionSeenSchema,
    cardId: z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (!value) return null;
        // A card id is a positive integer: 0 would be refused by the service client only after the change was logged.
        if (!/^[1-9]\d{0,11}$/.test(value)) {
          ctx.addIssue({ code: "custom", message: "pick one of the player's cards" });
          return z.NEVER;
        }
        return Number(value);
      }),
    walletOnly: z.enum(["keep", "yes", "no"], { message: "choose keep, yes or no" }).default("keep"),
  })
  // What the service refuses anyway: wallet only with a card (WALLET_ONLY_CONFLICT), leaving wallet only without a
  // card to pay with (PAYMENT_METHOD_REQUIRED).
  .superRefine((value, ctx) => {
    if (value.cardId === null && value.walletOnly === "keep")
      ctx.addIssue({ code: "custom", path: ["cardId"], message: "pick a card, or change wallet only" });
    else if (value.cardId !== null && value.walletOnly === "yes")
      ctx.addIssue({ code: "custom", path: ["cardId"], message: "wallet only takes no card: leave the card empty" });
    else if (value.cardId === null && value.walletOnly === "no")
      ctx.addIssue({ code: "custom", path: ["cardId"], message: "pick the card to pay with instead of the wallet" });
  });
