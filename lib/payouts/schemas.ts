import { characterCount } from "@/core/characters";
import { z } from "zod";
import { isPayoutFlag, type PayoutFlag } from "./flag-info";

/** Shared input schemas of payouts: the format check stops before any refinement that assumes it. */

export const batchIdSchema = z.uuid({ message: "must be a payout batch id" });
/** The batch's revision a page was drawn at (payout_batch.revision); `07` is revision 7, as the database writes it. */
export const batchRevisionSchema = z
  .string()
  .regex(/^\d{1,18}$/, { message: "must be the batch's revision", abort: true })
  .transform((value) => BigInt(value).toString());

export const snapshotIdSchema = z.uuid({ message: "must be a snapshot id" });

export const flagKindSchema = z
  .string({ message: "is required" })
  .regex(/^[a-z][a-z_]{0,63}$/, { message: "must be a flag kind such as window_open", abort: true })
  .refine(isPayoutFlag, { message: "is not a payout flag" })
  .transform((flag) => flag as PayoutFlag);

export const playerIdSchema = z
  .string()
  .regex(/^\d{1,15}$/, { message: "must be a player id (digits)" })
  .transform(Number);

export const reasonSchema = z
  .string()
  .trim()
  .min(5, { message: "must say why (at least 5 characters)" })
  .max(1000, { message: "must be at most 1,000 characters" });

/** Which instance of a flag an override names: its cause, as the flags list it ("dispute:dp_…:lost"). */
export const flagCauseSchema = z
  .string({ message: "is required" })
  .trim()
  .min(1, { message: "is empty" })
  .max(200, { message: "is too long" });

/** A flag override's reason, counted in characters as the database's check counts it. */
export const overrideReasonSchema = z
  .string({ message: "is required" })
  .trim()
  .refine((value) => characterCount(value) >= 10, {
    message: "must say why the flag does not stop the payment (at least 10 characters)",
    abort: true,
  })
  .refine((value) => characterCount(value) <= 1000, { message: "must be at most 1,000 characters" });
