import "server-only";
import { sql } from "kysely";
import type { Db } from "@/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

/**
 * Sign-in attempts are limited per email and per client address, counted in Postgres so the limit holds across
 * server processes: at most 5 failures per email and 30 per address in 15 minutes.
 *
 * An attempt is counted as a failure before the password is checked (and turned into a success after), under a
 * lock on the email, so parallel guesses cannot all pass the check before any failure is recorded.
 */
export const SIGN_IN_LIMITS = { perEmail: 5, perAddress: 30, windowMinutes: 15 } as const;

/**
 * The client's address, when it can be trusted: X-Forwarded-For is written by the client, so only the entry the
 * trusted proxy in front of Payout Desk appended (the right-most) counts, and only when PAYOUT_DESK_TRUST_PROXY=on.
 * Otherwise the address is unknown and only the per-email limit applies (never one shared key for everybody).
 */
export function clientAddress(headers: Headers, trustProxy = env().PAYOUT_DESK_TRUST_PROXY === "on"): string | null {
  if (!trustProxy) return null;
  const hops = (headers.get("x-forwarded-for") ?? "").split(",").map((h) => h.trim()).filter(Boolean);
  return hops.at(-1) ?? null;
}

/** Refuses when the limits are reached; otherwise records this attempt as a failure and returns its id. */
export async function beginSignInAttempt(db: Db, email: string, address: string | null): Promise<string> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`sign-in:${email}`}))`.execute(trx);
    const since = sql<Date>`now() - make_interval(mins => ${SIGN_IN_LIMITS.windowMinutes})`;
    const row = await trx
      .selectFrom("sign_in_attempt")
      .select([
        sql<string>`count(*) filter (where email = ${email})`.as("by_email"),
        sql<string>`count(*) filter (where ip = ${address ?? ""} and ${address !== null})`.as("by_ip"),
      ])
      .where("succeeded", "=", false)
      .where("at", ">", since)
      .where((eb) => eb.or([eb("email", "=", email), eb("ip", "=", address ?? "")]))
      .executeTakeFirstOrThrow();
    if (Number(row.by_email) >= SIGN_IN_LIMITS.perEmail || Number(row.by_ip) >= SIGN_IN_LIMITS.perAddress) {
      throw new AppError(
        "RATE_LIMITED",
        `Too many failed sign-ins. Wait ${SIGN_IN_LIMITS.windowMinutes} minutes or ask an admin to check the account.`,
      );
    }
    const inserted = await trx
      .insertInto("sign_in_attempt")
      .values({ email, ip: address ?? "", succeeded: false })
      .returning("id")
      .executeTakeFirstOrThrow();
    return inserted.id;
  });
}

export async function markSignInSucceeded(db: Db, attemptId: string): Promise<void> {
  await db.updateTable("sign_in_attempt").set({ succeeded: true }).where("id", "=", attemptId).execute();
}
