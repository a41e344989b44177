import { z } from "zod";
import { SUBSCRIPTION_ID_EXAMPLE, SUBSCRIPTION_ID_PATTERN } from "./schemas";

export { SUBSCRIPTION_ID_EXAMPLE } from "./schemas";

/**
 * The Subscriptions search box takes one of three things and sends the person to its page: a subscription id
 * ("Form SUB_<epoch>_<8 characters>"), a player email, or a period id (an integer, as on renewal lines).
 */
export type SearchTarget =
  | { kind: "subscription"; subscriptionId: string; href: string }
  | { kind: "player"; email: string; href: string }
  | { kind: "period"; periodId: number; href: string }
  | { kind: "invalid"; message: string };

/**
 * A player's address, with letters beyond ASCII (jürgen@example.de) and the standard's other characters in its local
 * part, but no "%" (the player page's address is read from its URL and decoded: "a%41b" would become another player),
 * no space or control character, and a dotted domain whose last label is letters or written in punycode (".xn--p1ai").
 */
const PLAYER_EMAIL = new RegExp(
  "^[\\p{L}\\p{N}!#$&'*+/=?^_\\x60{|}~.-]{1,64}@" +
    "(?:[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]*[\\p{L}\\p{N}])?\\.)+(?:\\p{L}{2,}|xn--[a-z0-9-]*[a-z0-9])$",
  "u",
);
const emailSchema = z.email({ pattern: PLAYER_EMAIL });

export function subscriptionHref(subscriptionId: string): string {
  return `/subscriptions/${encodeURIComponent(subscriptionId)}`;
}

export function playerHref(email: string): string {
  return `/subscriptions/players/${encodeURIComponent(email)}`;
}

export function periodHref(periodId: number | string): string {
  return `/subscriptions/periods/${encodeURIComponent(String(periodId))}`;
}

export function refundAttemptHref(attemptId: string): string {
  return `/subscriptions/refunds/${encodeURIComponent(attemptId)}`;
}

/**
 * The id as the service issues them (upper-case letters) when it differs from the one typed and is still an id: a
 * letter whose capital is two ("ß" to "SS") makes it none, and it is not asked for.
 */
export function upperCaseSubscriptionId(subscriptionId: string): string | null {
  const upper = subscriptionId.toUpperCase();
  return upper !== subscriptionId && SUBSCRIPTION_ID_PATTERN.test(upper) ? upper : null;
}

export function classifySearch(input: string): SearchTarget {
  const text = input.trim();
  if (text === "")
    return { kind: "invalid", message: "Enter a subscription id (SUB_…), a player email or a period id." };
  // Ids are pasted from emails and tickets: accept a lower-case prefix, keep the rest as typed.
  const asSubscription = /^sub_/i.test(text) ? `SUB_${text.slice(4)}` : text;
  if (SUBSCRIPTION_ID_PATTERN.test(asSubscription)) {
    return { kind: "subscription", subscriptionId: asSubscription, href: subscriptionHref(asSubscription) };
  }
  if (/^sub_/i.test(text)) {
    return {
      kind: "invalid",
      message: `A subscription id looks like ${SUBSCRIPTION_ID_EXAMPLE} (digits, then 8 characters).`,
    };
  }
  if (text.includes("@")) {
    const email = text.toLowerCase();
    if (email.length <= 254 && emailSchema.safeParse(email).success)
      return { kind: "player", email, href: playerHref(email) };
    return { kind: "invalid", message: `"${text.slice(0, 80)}" is not a valid email address.` };
  }
  const period = text.replace(/^#/, "");
  if (/^\d{1,15}$/.test(period)) {
    const periodId = Number(period);
    if (Number.isSafeInteger(periodId) && periodId > 0) return { kind: "period", periodId, href: periodHref(periodId) };
  }
  return { kind: "invalid", message: "Enter a subscription id (SUB_…), a player email or a period id (a number)." };
}
