import type { PayoutStatementState } from "@/db/types";

/** A statement's state in running text, after "is" ("is in a payment file"): never the stored name. */
export const STATE_IN_WORDS: Record<PayoutStatementState, string> = {
  draft: "in draft",
  approved: "approved",
  held: "held",
  in_payment: "in a payment file",
  paid: "paid",
  returned: "a returned payment (owed again)",
  carried: "carried forward",
};
