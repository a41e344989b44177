import { z } from "zod";

/**
 * A count of sends the person acted on (a page's, or `payouts show`'s `emailRuns`): digits only ("" is no count, not
 * 0). A send of every statement again is refused when more were queued since (lib/statements/send.ts).
 */
export const countSeenSchema = z
  .string()
  .regex(/^\d{1,9}$/, { message: "must be a count", abort: true })
  .transform(Number);
