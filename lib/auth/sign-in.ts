import "server-only";
import { sql } from "kysely";
import type { Db } from "@/db";
import { AppError } from "@/lib/errors";

/**
 * Sign-in attempts are limited per email and per client address, counted in Postgres so the limit holds across
 * server processes: at most 5 failures per email and 30 per address in 15 minutes.
 */
export const SIGN_IN_LIMITS = { perEmail: 5, perAddress: 30, windowMinutes: 15 } as const;

export async function assertSignInAllowed(db: Db, email: string, ip: string): Promise<void> {
  const since = sql<Date>`now() - make_interval(mins => ${SIGN_IN_LIMITS.windowMinutes})`;
  const row = await db
    .selectFrom("sign_in_attempt")
    .select([
      sql<string>`count(*) filter (where email = ${email})`.as("by_email"),
      sql<string>`count(*) filter (where ip = ${ip})`.as("by_ip"),
    ])
    .where("succeeded", "=", false)
    .where("at", ">", since)
    .where((eb) => eb.or([eb("email", "=", email), eb("ip", "=", ip)]))
    .executeTakeFirstOrThrow();
  if (Number(row.by_email) >= SIGN_IN_LIMITS.perEmail || Number(row.by_ip) >= SIGN_IN_LIMITS.perAddress) {
    throw new AppError(
      "RATE_LIMITED",
      `Too many failed sign-ins. Wait ${SIGN_IN_LIMITS.windowMinutes} minutes or ask an admin to check the account.`,
    );
  }
}

export async function recordSignInAttempt(db: Db, email: string, ip: string, succeeded: boolean): Promise<void> {
  await db.insertInto("sign_in_attempt").values({ email, ip, succeeded }).execute();
}
