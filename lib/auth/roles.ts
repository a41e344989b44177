import { z } from "zod";

/**
 * Roles, lowest first. A role may do what every role below it may: viewer reads; support looks up, refunds and
 * cancels; finance reviews, approves and exports payouts (and refunds above support's limit); admin manages users,
 * games and settings.
 */
export const ROLES = ["viewer", "support", "finance", "admin"] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES, { message: "must be one of viewer, support, finance, admin" });

export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function hasRole(actual: Role, required: Role): boolean {
  return roleRank(actual) >= roleRank(required);
}

/** The role just below `role`, or null for the lowest. */
export function roleBelow(role: Role): Role | null {
  const rank = roleRank(role);
  return rank > 0 ? (ROLES[rank - 1] ?? null) : null;
}

export const ROLE_LABELS: Record<Role, string> = {
  viewer: "Viewer (read-only)",
  support: "Support (lookup, refunds, cancels)",
  finance: "Finance (payouts, exports)",
  admin: "Admin (users, games, settings)",
};
