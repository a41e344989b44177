import { z } from "zod";

/** The refund domain's shared schemas: what the support forms, their actions and the reconcile job accept. */

/** A refund attempt's id (the uuid Payout Desk gives each attempt). */
export const refundAttemptIdSchema = z.uuid({ message: "must be a refund attempt id" });
