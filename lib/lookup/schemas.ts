import { z } from "zod";

/**
 * The subscription domain's shared schemas: the one statement of what a subscription id is, used by the support
 * forms and their actions, the search box, the service client and the emulator.
 */

/**
 * "Form SUB_<epoch>_<8 characters>" (service API, subscription ids). The spec says neither the epoch's unit (seconds,
 * or milliseconds: 13 digits) nor which characters; the service issues letters and digits, and any 8 are accepted but
 * blanks and those that would make a typed search another thing (an email's `@`) or a path something else
 * (`/ \ ? # %`).
 */
export const SUBSCRIPTION_ID_PATTERN = /^SUB_\d{1,16}_[^\s@/\\?#%]{8}$/;

/** An id as the service issues them (upper-case letters and digits after the epoch): the one example shown. */
export const SUBSCRIPTION_ID_EXAMPLE = "SUB_1767225600_AB12CD34";

/** A subscription id as typed or sent; the format check aborts, so no later refinement sees a malformed id. */
export const subscriptionIdSchema = z.string({ message: "is required" }).regex(SUBSCRIPTION_ID_PATTERN, {
  message: `must be a subscription id such as ${SUBSCRIPTION_ID_EXAMPLE}`,
  abort: true,
});
