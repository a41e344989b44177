import { PROFILE_FLAG_INFO, PROFILE_FLAGS, type ProfileFlag } from "@/lib/profiles/flag-info";

/**
 * Flags that block approving a statement until they are resolved or overridden with a written reason. Pure, shared
 * by pages and the workflow.
 */
export const WINDOW_FLAGS = [
  "spend_order_not_found",
  "snapshot_drift",
  "snapshot_stale",
  "newer_snapshot",
  "window_open",
] as const;
export const RECIPIENT_FLAGS = [
  "unresolved_recipient",
  "attribution_unavailable",
  "reversal_reported_again",
  "carried_with_open_flags",
] as const;
/** Raised while a recipient's renewal is disputed, from the dispute's own record (never stored on a statement). */
export const DISPUTE_FLAGS = ["disputed_renewal"] as const;
/** Raised while the recipient has a negative balance another batch holds or carried out (never stored). */
export const BALANCE_FLAGS = ["negative_balance_elsewhere"] as const;
export type WindowFlag = (typeof WINDOW_FLAGS)[number];
export type RecipientFlag = (typeof RECIPIENT_FLAGS)[number];
export type DisputeFlag = (typeof DISPUTE_FLAGS)[number];
export type BalanceFlag = (typeof BALANCE_FLAGS)[number];
export type PayoutFlag = WindowFlag | RecipientFlag | DisputeFlag | BalanceFlag | ProfileFlag;
export const PAYOUT_FLAGS: readonly PayoutFlag[] = [
  ...WINDOW_FLAGS,
  ...RECIPIENT_FLAGS,
  ...DISPUTE_FLAGS,
  ...BALANCE_FLAGS,
  ...PROFILE_FLAGS,
];

/**
 * Flags raised since approval that say not to pay a statement yet (a renewal disputed, details nobody confirmed with
 * the recipient, a required tax form missing): neither a payment file nor a payment recorded by hand takes it while one
 * is open. A payment that came back (`payment_returned`) keeps it out of files only: paying it again by hand, by
 * another route, is the remedy.
 */
const STOP_PAYMENT_BY_HAND: readonly string[] = ["disputed_renewal", "payout_details_changed", "tax_form_missing"];
export const stopsPaymentByHand = (flag: string): boolean => STOP_PAYMENT_BY_HAND.includes(flag);

export function isWindowFlag(flag: string): flag is WindowFlag {
  return (WINDOW_FLAGS as readonly string[]).includes(flag);
}

export function isPayoutFlag(flag: string): flag is PayoutFlag {
  return (PAYOUT_FLAGS as readonly string[]).includes(flag);
}

export const FLAG_INFO: Record<PayoutFlag, { label: string; meaning: string }> = {
  // "spend_order_not_found (settlement record unreachable; investigate before paying)"
  spend_order_not_found: {
    label: "Spend order not found",
    meaning:
      "The service could not reach the settlement record of some renewals in this window, so their attribution is " +
      "unknown. Find out why before paying.",
  },
  snapshot_drift: {
    label: "Snapshot drift",
    meaning:
      "A re-pull of this closed window gave different figures from the previous version. Find out why before paying: " +
      "raised after approval, it does not stop payment files or payments recorded by hand; hold a payout to stop it.",
  },
  snapshot_stale: {
    label: "Stale snapshot",
    meaning:
      "The service reported a change inside this window (a webhook or a refund) after this snapshot was read. While " +
      "the batch is a draft, take a new snapshot, then discard and prepare again; once it is approved its figures " +
      "stay and are paid as approved: override with what was checked, or hold a payout to stop it.",
  },
  newer_snapshot: {
    label: "Newer snapshot exists",
    meaning:
      "A newer version of this window's snapshot was taken after this batch was prepared. A draft batch is " +
      "discarded and prepared again to pay from it; an approved batch keeps its figures and is paid as approved: " +
      "override with what was checked, or hold a payout to stop it (carry it forward once the batch is paid).",
  },
  window_open: {
    label: "Window not closed",
    meaning: "The snapshot was read before the window ended; renewals and refunds still to come in it would be missed.",
  },
  unresolved_recipient: {
    label: "Unresolved recipient",
    meaning: "The service cannot find this recipient's player record (no name or email): who would be paid is unknown.",
  },
  attribution_unavailable: {
    label: "Unavailable attribution",
    meaning: "Some of this recipient's renewal lines carry an attribution reason instead of a recorded attribution.",
  },
  // reversal_basis "period_row = coarse fallback, reported wholly in the window of the latest refund"
  reversal_reported_again: {
    label: "Reversal reported again",
    meaning:
      "A reversal the service knows only from its period row is deducted by another window's batch too, and reported " +
      "again here, whole, after a later refund of the same period; this statement cannot leave out the part " +
      "deducted there: that batch is still a draft (approve or discard it first, then prepare this window again), " +
      "or the period's refunds are partly known from receipts (compare the two windows' reversals of it). " +
      "Deducting it here would charge the recipient for the earlier part twice: hold the payout, or override with " +
      "a reason.",
  },
  carried_with_open_flags: {
    label: "Carried in with open flags",
    meaning:
      "This statement takes in a balance carried forward from a hold whose flags were still open (a disputed " +
      "renewal, changed payout details, a returned payment…): the flags of the earlier window do not follow the " +
      "money by themselves. Open the earlier statement, check what they said, then override with what was checked.",
  },
  // "purchase.disputed: Chargeback opened; fires again on close with dispute_status won or lost"
  disputed_renewal: {
    label: "Disputed renewal",
    meaning:
      "The card charge of one of this recipient's renewals in this window is disputed (a chargeback). It blocks " +
      "approval until the dispute closes won; a lost dispute is money the studio lost and stays flagged until it is " +
      "overridden with a reason or the payout is held.",
  },
  negative_balance_elsewhere: {
    label: "Negative balance elsewhere",
    meaning:
      "The recipient owes a negative balance this statement does not take in: another window's statement, its " +
      "batch not approved yet, has a negative balance, or one was carried forward after this statement was " +
      "prepared. Paying this one in full would pay money the recipient owes. Approve the other window first, then " +
      "discard and prepare this batch again (it takes the balance in); or hold this payout; or override with a " +
      "reason.",
  },
  // Raised by the recipient's payout profile (lib/profiles/flags.ts).
  ...PROFILE_FLAG_INFO,
};

/** What each unattributed reason means for payment (the spec's keys). */
export const UNATTRIBUTED_REASON_INFO: Record<string, { label: string; meaning: string; blocks: boolean }> = {
  no_revenue_share_configured: {
    label: "No revenue share configured",
    meaning: "Nobody earned anything on these renewals. Nothing to pay.",
    blocks: false,
  },
  spend_order_not_found: {
    label: "Spend order not found",
    meaning:
      "Settlement record unreachable: investigate before paying. Approval is blocked until overridden with a reason.",
    blocks: true,
  },
  attribution_not_recorded: {
    label: "Attribution not recorded",
    meaning:
      "The service recorded no attribution for these renewals; a recipient may be owed a share. Ask the service " +
      "before relying on it.",
    blocks: false,
  },
  attribution_malformed: {
    label: "Attribution malformed",
    meaning:
      "The recorded attribution could not be read; a recipient may be owed a share. Ask the service before relying " +
      "on it.",
    blocks: false,
  },
};
