import "server-only";
import { isIPv6 } from "node:net";
import type { Db } from "@/db";
import { deleteSessionByToken, readCredentialHash } from "@/db/queries/users";
import {
  deleteSignInFailures,
  hasSignedInFrom,
  insertSignInAttempt,
  listAccountFailures,
  listAddressFailures,
  lockSignInAddress,
  lockSignInEmail,
  markSignInAttemptSucceeded,
  pruneSignInAttempts as pruneAttempts,
  readAccountFailures,
  readAddressFailures,
} from "@/db/queries/sign-in-attempts";
import type { ActingAs, Actor, Via } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { getAuth } from "@/lib/auth/auth";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

/**
 * Sign-in attempts are slowed per account and limited per client address, counted in Postgres so the rules hold
 * across server processes. No rule locks an account: an anonymous caller who fails on someone's email only makes the
 * next attempt on that email wait a while, never longer than `maxDelaySeconds`.
 *
 * - Account: after `freeFailures` failures (since the last successful sign-in, within `accountMemoryHours`), the
 *   next attempt waits `firstDelaySeconds` after the latest failure, doubling with each further failure up to
 *   `maxDelaySeconds`. Attempts refused while waiting are not checked, not counted and do not lengthen the wait.
 * - Address (behind a trusted proxy only): at most `perAddress` failures in `addressWindowMinutes`, whatever the
 *   emails. An address that signed in to the account within `knownAddressDays` is slowed only by its own failures.
 *
 * An attempt is counted as a failure before the password is checked (and turned into a success after), under a
 * lock on the email, so parallel guesses cannot all pass the check before any failure is recorded.
 */
export const SIGN_IN_LIMITS = {
  freeFailures: 5,
  firstDelaySeconds: 15,
  maxDelaySeconds: 600,
  accountMemoryHours: 24,
  perAddress: 30,
  addressWindowMinutes: 15,
  knownAddressDays: 30,
} as const;

const HOUR_MS = 3_600_000;

/** How long an account waits after its latest failure, given its failures so far. */
export function accountDelaySeconds(failures: number): number {
  if (failures < SIGN_IN_LIMITS.freeFailures) return 0;
  const doublings = Math.min(failures - SIGN_IN_LIMITS.freeFailures, 30);
  return Math.min(SIGN_IN_LIMITS.firstDelaySeconds * 2 ** doublings, SIGN_IN_LIMITS.maxDelaySeconds);
}

/**
 * The client's address, when it can be trusted: X-Forwarded-For is written by the client, so only the entry the
 * trusted proxy in front of Payout Desk appended (the right-most) counts, and only when PAYOUT_DESK_TRUST_PROXY=on.
 * Otherwise the address is unknown and only the per-account delays apply (never one shared key for everybody).
 */
export function clientAddress(headers: Headers, trustProxy = env().PAYOUT_DESK_TRUST_PROXY === "on"): string | null {
  if (!trustProxy) return null;
  const hops = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  const last = hops.at(-1);
  return last === undefined ? null : addressKey(last);
}

/**
 * The address limits are counted by: an IPv4 address as it is (also written as IPv6, `::ffff:192.0.2.7`); an IPv6
 * address by its /64 prefix, the network one home line or machine is given (each of its addresses otherwise counted
 * apart would escape the per-address limit).
 */
export function addressKey(address: string): string {
  const bare = address.replace(/%.*$/, "");
  if (!isIPv6(bare)) return address;
  // Groups of 16 bits as numbers, "::" expanded; an IPv4 tail is two groups.
  const groupsOf = (part: string): number[] =>
    part === ""
      ? []
      : part.split(":").flatMap((g) => {
          if (!g.includes(".")) return [Number.parseInt(g, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = g.split(".").map(Number);
          return [a * 256 + b, c * 256 + d];
        });
  const [head = "", tail] = bare.split("::");
  const first = groupsOf(head);
  const last = tail === undefined ? [] : groupsOf(tail);
  const groups = tail === undefined ? first : [...first, ...Array(8 - first.length - last.length).fill(0), ...last];
  // An IPv4 address mapped into IPv6 (::ffff:a.b.c.d, in either notation) is that IPv4 address.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

function waitText(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1_000));
  return seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}

/** Refuses when a limit applies now; otherwise records this attempt as a failure and returns its id. */
export async function beginSignInAttempt(
  db: Db,
  email: string,
  address: string | null,
  nowMs = Date.now(),
): Promise<string> {
  return db.transaction().execute(async (trx) => {
    // The address first, then the email, always in that order: parallel guesses on many accounts from one address are
    // counted one after another too.
    if (address !== null) await lockSignInAddress(trx, address);
    await lockSignInEmail(trx, email);
    if (address !== null) {
      const windowMs = SIGN_IN_LIMITS.addressWindowMinutes * 60_000;
      const byAddress = await readAddressFailures(trx, { address, since: new Date(nowMs - windowMs) });
      if (byAddress.failures >= SIGN_IN_LIMITS.perAddress && byAddress.oldestAt) {
        const wait = byAddress.oldestAt.getTime() + windowMs - nowMs;
        throw new AppError(
          "RATE_LIMITED",
          `Too many failed sign-ins from this network. Try again in ${waitText(wait)}.`,
        );
      }
    }
    const known =
      address !== null &&
      (await hasSignedInFrom(trx, {
        email,
        address,
        since: new Date(nowMs - SIGN_IN_LIMITS.knownAddressDays * 24 * HOUR_MS),
      }));
    const account = await readAccountFailures(trx, {
      email,
      since: new Date(nowMs - SIGN_IN_LIMITS.accountMemoryHours * HOUR_MS),
      address: known && address !== null ? address : undefined,
    });
    const delayMs = accountDelaySeconds(account.failures) * 1_000;
    if (delayMs > 0 && account.lastFailureAt && nowMs < account.lastFailureAt.getTime() + delayMs) {
      const wait = account.lastFailureAt.getTime() + delayMs - nowMs;
      throw new AppError("RATE_LIMITED", `Too many failed sign-ins for this account. Try again in ${waitText(wait)}.`);
    }
    return insertSignInAttempt(trx, { email, address, at: new Date(nowMs) });
  });
}

/**
 * Forgets the attempts no rule reads any more: failures older than the longest window that counts them (the account's
 * memory), successes older than the days an address stays known. Run every hour (`auth.prune-sign-ins`), so a flood of
 * attempts on made-up emails does not grow the table for ever.
 */
export async function pruneSignInAttempts(db: Db, nowMs = Date.now()): Promise<number> {
  return pruneAttempts(db, {
    failuresBefore: new Date(nowMs - SIGN_IN_LIMITS.accountMemoryHours * HOUR_MS),
    successesBefore: new Date(nowMs - SIGN_IN_LIMITS.knownAddressDays * 24 * HOUR_MS),
  });
}

/** Turns the attempt into a success and writes the sign-in's audit line, in one transaction. */
export async function markSignInSucceeded(
  db: Db,
  attemptId: string,
  signIn: { user: { id: string; email: string }; via: Via },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const address = await markSignInAttemptSucceeded(trx, attemptId);
    // The person who signed in is the actor (filtering the log by them finds their sign-ins); the client's address
    // as far as it can be trusted (clientAddress: null without a trusted proxy in front).
    await recordAudit(trx, {
      actor: { id: signIn.user.id, email: signIn.user.email },
      via: signIn.via,
      action: "user.sign_in",
      target: signIn.user.email,
      outcome: "succeeded",
      detail: { address },
    });
  });
}

/**
 * Checks the password with better-auth, which makes the session (its cookie set on the answer), and keeps that session
 * only when the account's password is still the one it was checked against: access removed or the password replaced
 * while it was being checked (tens of milliseconds) ended every session then, before this one existed; such a session
 * is ended here. Null for a refusal, whatever its cause. `record`: writes what a sign-in leaves (its audit line); when
 * it fails, the session is ended too, so no one is signed in without it, and its error thrown.
 */
export async function signInWithPassword(
  db: Db,
  params: {
    email: string;
    password: string;
    headers: Headers;
    record: (user: { id: string; email: string }) => Promise<void>;
  },
): Promise<{ id: string; email: string } | null> {
  const checkedHash = await readCredentialHash(db, params.email);
  let signedIn: { user: { id: string; email: string }; token: string };
  try {
    signedIn = await getAuth().api.signInEmail({
      body: { email: params.email, password: params.password },
      headers: params.headers,
    });
  } catch {
    return null;
  }
  let kept = false;
  try {
    const now = await readCredentialHash(db, params.email);
    if (now === null || now !== checkedHash) return null;
    await params.record(signedIn.user);
    kept = true;
    return signedIn.user;
  } finally {
    if (!kept) await deleteSessionByToken(db, signedIn.token);
  }
}

/**
 * Checks the password of a person a command acts for (the command line's `--actor`), under the same per-account
 * limits as the sign-in page, and writes the sign-in's audit line with the caller's `via`. No session is made. False
 * for a wrong password or an account without one; the limits' refusal is thrown as on the page.
 */
export async function checkActorPassword(
  db: Db,
  params: { user: { id: string; email: string }; password: string; via: Via },
): Promise<boolean> {
  const attemptId = await beginSignInAttempt(db, params.user.email, null);
  const hash = await readCredentialHash(db, params.user.email);
  if (hash === null) return false;
  const ctx = await getAuth().$context;
  if (!(await ctx.password.verify({ hash, password: params.password }))) return false;
  await markSignInSucceeded(db, attemptId, { user: params.user, via: params.via });
  return true;
}

/** Ends the session the request carries (better-auth's sign-out) and writes the audit line. */
export async function signOut(db: Db, requestHeaders: Headers, as: ActingAs & { actor: Actor }): Promise<void> {
  await getAuth().api.signOut({ headers: requestHeaders });
  await recordAudit(db, { ...as, action: "user.sign_out", target: as.actor.email, outcome: "succeeded" });
}

export type AccountLimit = { email: string; failures: number; lastFailureAt: string; delayedUntil: string | null };
export type AddressLimit = { address: string; failures: number; lastFailureAt: string; limitedUntil: string | null };

/** Accounts with recent failures and client addresses with failures in their window, for admins. */
export async function listSignInLimits(
  db: Db,
  nowMs = Date.now(),
): Promise<{ accounts: AccountLimit[]; addresses: AddressLimit[] }> {
  const accountRows = await listAccountFailures(db, {
    since: new Date(nowMs - SIGN_IN_LIMITS.accountMemoryHours * HOUR_MS),
    limit: 50,
  });
  const windowMs = SIGN_IN_LIMITS.addressWindowMinutes * 60_000;
  const addressRows = await listAddressFailures(db, { since: new Date(nowMs - windowMs), limit: 50 });
  return {
    accounts: accountRows.map((row) => {
      const until = row.lastFailureAt.getTime() + accountDelaySeconds(row.failures) * 1_000;
      return {
        email: row.email,
        failures: row.failures,
        lastFailureAt: row.lastFailureAt.toISOString(),
        delayedUntil: until > nowMs ? new Date(until).toISOString() : null,
      };
    }),
    addresses: addressRows.map((row) => {
      const until = row.oldestAt.getTime() + windowMs;
      return {
        address: row.address,
        failures: row.failures,
        lastFailureAt: row.lastFailureAt.toISOString(),
        limitedUntil: row.failures >= SIGN_IN_LIMITS.perAddress && until > nowMs ? new Date(until).toISOString() : null,
      };
    }),
  };
}

export type SignInLimitTarget = { kind: "account"; email: string } | { kind: "address"; address: string };

/** Forgets the failures of an account or an address (an admin's decision), with its audit line. */
export async function clearSignInLimit(db: Db, target: SignInLimitTarget, as: ActingAs): Promise<{ failures: number }> {
  return db.transaction().execute(async (trx) => {
    const failures = await deleteSignInFailures(
      trx,
      target.kind === "account" ? { email: target.email } : { address: target.address },
    );
    await recordAudit(trx, {
      ...as,
      action: "user.sign_in_limit_clear",
      target: target.kind === "account" ? target.email : target.address,
      outcome: "succeeded",
      detail: { kind: target.kind, failures, via: as.via },
    });
    return { failures };
  });
}
