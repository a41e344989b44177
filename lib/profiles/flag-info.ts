/**
 * The flags a payout profile raises on a recipient's statement (lib/profiles/flags.ts); each blocks approval until
 * it is resolved or overridden with a written reason, like every payout flag (lib/payouts/flag-info.ts).
 */
export const PROFILE_FLAGS = [
  "no_payout_method",
  "payout_details_changed",
  "tax_form_missing",
  "payment_returned",
  "statement_undeliverable",
] as const;
export type ProfileFlag = (typeof PROFILE_FLAGS)[number];

export const PROFILE_FLAG_INFO: Record<ProfileFlag, { label: string; meaning: string }> = {
  no_payout_method: {
    label: "No payout method",
    meaning: "This recipient has no payout profile: nobody knows where to send the money. Add their payout details.",
  },
  payout_details_changed: {
    label: "Payout details changed",
    meaning:
      "The recipient's payout details changed since they were last paid. Confirm the change with the recipient " +
      "through a known channel, then override this flag with what you checked.",
  },
  tax_form_missing: {
    label: "Tax form missing",
    meaning:
      "A tax form on file is required before paying (Settings → Payouts), and this recipient has none, " +
      "or it has expired.",
  },
  payment_returned: {
    label: "Payment returned",
    meaning: "A previous payment to this recipient came back from the provider. Check their payout details.",
  },
  statement_undeliverable: {
    label: "Statement undeliverable",
    meaning:
      "The mail server refused the address of this recipient's last statement email for good: they cannot be " +
      "told what they are paid. It goes when their email on record changes or a later statement is delivered; " +
      "otherwise confirm how to reach them, then override it with what you checked.",
  },
};
