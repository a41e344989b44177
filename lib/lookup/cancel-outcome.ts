import { parseIsoUtc } from "@/lib/format";

/**
 * What the service will do with a cancel, said in plain words, read from the subscription's own fields and never from
 * this machine's clock (the service decides with its own). The spec's cancel transitions:
 *
 * - at period end, "a paid period has not ended": live with cancel_at_period_end true, retired at paid_through with no
 *   further charge;
 * - at period end, "nothing paid, or paid window elapsed": ended immediately (terminated_immediately, NO_PAID_PERIOD);
 * - now: ended now, access_until = paid_through if in the future, else now;
 * - canceled or expired: unchanged (already_canceled).
 *
 * The current billing window stands for the service's "now": a live subscription is inside it. paid_through after its
 * start means a paid period is still running; null or at/before its start means nothing paid is running. A next touch
 * after paid_through (next_charge_at: a retry in dunning, a challenge's deadline in awaiting_authentication) means the
 * service is past paid_through already: the renewal due then was tried and did not pay, so nothing paid is running,
 * whatever window the service still shows as current (in dunning it stays the last one paid).
 */
export type CancelSubscriptionFields = {
  status: string;
  paid_through: string | null;
  current_period_start: string | null;
  cancel_at_period_end: boolean;
  /** The service's next touch; left out where unknown. */
  next_charge_at?: string | null;
};

export type CancelOutcome = {
  /** One or two sentences for the person about to cancel. */
  text: string;
  /** The service's word for it, shown as a detail (never the sentence itself). */
  code: "NO_PAID_PERIOD" | "ALREADY_CANCELED" | null;
  /** paid_through, when access continues until then. */
  accessUntil: string | null;
};

const TERMINAL = new Set(["canceled", "expired"]);

export function isTerminalStatus(status: string): boolean {
  return TERMINAL.has(status);
}

/** Whether a paid period is still running at the service, judged from the subscription's own fields. */
export function paidPeriodRunning(
  sub: Pick<CancelSubscriptionFields, "paid_through" | "current_period_start" | "next_charge_at">,
): boolean {
  const through = sub.paid_through === null ? null : parseIsoUtc(sub.paid_through);
  if (through === null) return false;
  const next = sub.next_charge_at ? parseIsoUtc(sub.next_charge_at) : null;
  if (next !== null && next > through) return false;
  const start = sub.current_period_start === null ? null : parseIsoUtc(sub.current_period_start);
  return start === null || through > start;
}

export function describeCancelOutcome(
  sub: CancelSubscriptionFields,
  when: "period_end" | "now",
  formatTime: (iso: string) => string = (iso) => iso,
): CancelOutcome {
  if (isTerminalStatus(sub.status)) {
    return {
      text: `This subscription is already ${sub.status}; the service changes nothing.`,
      code: "ALREADY_CANCELED",
      accessUntil: null,
    };
  }
  const running = paidPeriodRunning(sub);
  const through = running && sub.paid_through ? sub.paid_through : null;
  if (when === "period_end") {
    if (through) {
      const already = sub.cancel_at_period_end ? "It is already set to end then. " : "";
      return {
        text:
          `${already}It stays active until ${formatTime(through)}, the end of the paid period, then ends. The ` +
          `player is not charged again.`,
        code: null,
        accessUntil: through,
      };
    }
    return {
      text:
        sub.paid_through === null
          ? "Nothing has been paid yet, so it ends immediately, not at a period end. The player is not charged."
          : `The paid period already ended (paid through ${formatTime(sub.paid_through)}), so it ends immediately. ` +
            `The player is not charged again.`,
      code: "NO_PAID_PERIOD",
      accessUntil: null,
    };
  }
  return through
    ? {
        text:
          `It ends now and is never charged again; the player keeps access until ${formatTime(through)}, the end ` +
          `of what was paid.`,
        code: null,
        accessUntil: through,
      }
    : { text: "It ends now and access ends now. The player is not charged again.", code: null, accessUntil: null };
}

/** The line's usual name; another names next_charge_at for what it is then. */
export const NEXT_CHARGE = "Next charge";

/** Statuses of a subscription whose renewal failed and is retried ("a dunning (retrying) condition"). */
const DUNNING_STATUSES = new Set(["past_due", "dunning", "retrying"]);

/**
 * The "Next charge" line of a subscription: none once it is ending, whatever next_charge_at says (the service's next
 * touch). next_charge_at is the "retry time in dunning; challenge deadline in awaiting_authentication": named so, not
 * a charge the player could be told to expect.
 */
export function describeNextCharge(sub: CancelSubscriptionFields & { next_charge_at: string | null }): {
  label: string;
  at: string | null;
  note: string | null;
} {
  const label = NEXT_CHARGE;
  if (isTerminalStatus(sub.status)) return { label, at: null, note: "None: the subscription has ended." };
  if (sub.cancel_at_period_end) {
    return {
      label,
      at: null,
      note: sub.paid_through ? "None: it ends at the end of the paid period." : "None: it is set to end.",
    };
  }
  if (sub.status === "awaiting_authentication")
    return { label: "Authentication deadline", at: sub.next_charge_at, note: null };
  if (DUNNING_STATUSES.has(sub.status)) return { label: "Charge retried at", at: sub.next_charge_at, note: null };
  return { label, at: sub.next_charge_at, note: null };
}
