import { hasRole, type Role } from "@/lib/auth/roles";

/**
 * Who may enter payout details and who may review a pending change. Finance (and admins, who may do all finance
 * may) enter details; a change waits for a second finance user, never the one who entered it, under the two-person
 * rule (Settings → Payouts; a team of one switches it off and reviews its own changes). Pages offer only what this
 * allows, and the domain refuses by the same functions.
 */
export function canEditProfiles(role: Role): boolean {
  return hasRole(role, "finance");
}

/** `twoPerson`: refused by the two-person rule (the person entered the change), not by their role. */
export type ReviewVerdict = { allowed: true } | { allowed: false; reason: string; twoPerson: boolean };

export function reviewVerdict(
  user: { id: string; role: Role },
  change: { enteredById: string | null },
  twoPersonRule: boolean,
): ReviewVerdict {
  if (!hasRole(user.role, "finance"))
    return { allowed: false, reason: "Only finance users review payout changes.", twoPerson: false };
  if (twoPersonRule && change.enteredById === user.id)
    return { allowed: false, reason: "You entered this change: a second finance user reviews it.", twoPerson: true };
  return { allowed: true };
}
