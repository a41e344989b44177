import "server-only";

/**
 * Whether the recipient attributed on a period has already been paid for it (a paid statement whose snapshot
 * included that period's renewal line). When they have, a refund's reversal cannot be taken back from that payment
 * and is carried against their next payout instead; the refund screen says so. Payouts answer it.
 */
export { wasRecipientPaidFor } from "@/lib/payouts/paid-status";
