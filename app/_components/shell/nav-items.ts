import { hasRole, type Role, roleSchema } from "@/lib/auth/roles";

/** Each area with the lowest role its page lets in (requirePageRole on the page): a link is shown only to those. */
export const NAV_ITEMS: readonly { href: string; label: string; role: Role; also?: readonly string[] }[] = [
  // Recipients is a tab of the payout area.
  { href: "/payouts", label: "Payouts", role: "viewer", also: ["/recipients"] },
  { href: "/subscriptions", label: "Subscriptions", role: "viewer" },
  { href: "/webhooks", label: "Webhooks", role: "viewer" },
  { href: "/audit", label: "Audit log", role: "viewer" },
  { href: "/outbox", label: "Outbox", role: "admin" },
  { href: "/settings", label: "Settings", role: "admin" },
];

/** The areas a role may open, in menu order. */
export function navItemsFor(role: string): { href: string; label: string; also?: readonly string[] }[] {
  const parsed = roleSchema.safeParse(role);
  return parsed.success
    ? NAV_ITEMS.filter((item) => hasRole(parsed.data, item.role))
    : NAV_ITEMS.filter((item) => item.role === "viewer");
}
