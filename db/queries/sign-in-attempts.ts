import "server-only";
import { sql } from "kysely";
import type { Db } from "@/db";

/** Sign-in attempts (table sign_in_attempt): one row per attempt, a failure until the password is confirmed. */

/** Sign-ins from one address, one at a time: its limit counts across accounts. Taken before the email's lock. */
export async function lockSignInAddress(trx: Db, address: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`sign-in-address:${address}`}))`.execute(trx);
}

/** Serialises the attempts on one email until the end of the transaction. */
export async function lockSignInEmail(trx: Db, email: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`sign-in:${email}`}))`.execute(trx);
}

const NEVER = new Date(Date.UTC(1970, 0, 1));

/**
 * Failures on an email since its last successful sign-in and after `since` (only those from `address` when given):
 * how many, and the latest.
 */
export async function readAccountFailures(
  trx: Db,
  input: { email: string; since: Date; address?: string },
): Promise<{ failures: number; lastFailureAt: Date | null }> {
  const lastSuccess = trx
    .selectFrom("sign_in_attempt")
    .select((eb) => eb.fn.max("at").as("at"))
    .where("email", "=", input.email)
    .where("succeeded", "=", true);
  let query = trx
    .selectFrom("sign_in_attempt")
    .select((eb) => [eb.fn.countAll<string>().as("failures"), eb.fn.max("at").as("last_failure")])
    .where("email", "=", input.email)
    .where("succeeded", "=", false)
    .where("at", ">", input.since)
    .where("at", ">", (eb) => eb.fn.coalesce(lastSuccess, sql<Date>`${NEVER}::timestamptz`));
  if (input.address !== undefined) query = query.where("ip", "=", input.address);
  const row = await query.executeTakeFirstOrThrow();
  return { failures: Number(row.failures), lastFailureAt: row.last_failure ? new Date(row.last_failure) : null };
}

/** Failures from one client address after `since`: how many, and the oldest of them. */
export async function readAddressFailures(
  trx: Db,
  input: { address: string; since: Date },
): Promise<{ failures: number; oldestAt: Date | null }> {
  const row = await trx
    .selectFrom("sign_in_attempt")
    .select((eb) => [eb.fn.countAll<string>().as("failures"), eb.fn.min("at").as("oldest")])
    .where("ip", "=", input.address)
    .where("succeeded", "=", false)
    .where("at", ">", input.since)
    .executeTakeFirstOrThrow();
  return { failures: Number(row.failures), oldestAt: row.oldest ? new Date(row.oldest) : null };
}

/** Whether the email signed in successfully from this address after `since`. */
export async function hasSignedInFrom(
  trx: Db,
  input: { email: string; address: string; since: Date },
): Promise<boolean> {
  const row = await trx
    .selectFrom("sign_in_attempt")
    .select("id")
    .where("email", "=", input.email)
    .where("ip", "=", input.address)
    .where("succeeded", "=", true)
    .where("at", ">", input.since)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Records an attempt as a failure (the caller turns it into a success once the password is confirmed). */
export async function insertSignInAttempt(
  trx: Db,
  input: { email: string; address: string | null; at: Date },
): Promise<string> {
  const row = await trx
    .insertInto("sign_in_attempt")
    .values({ email: input.email, ip: input.address ?? "", succeeded: false, at: input.at })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Marks the attempt a success; returns the client address it was made from (null when not known). */
export async function markSignInAttemptSucceeded(db: Db, attemptId: string): Promise<string | null> {
  const row = await db
    .updateTable("sign_in_attempt")
    .set({ succeeded: true })
    .where("id", "=", attemptId)
    .returning("ip")
    .executeTakeFirst();
  return row?.ip ? row.ip : null;
}

export type AccountFailureRow = { email: string; failures: number; lastFailureAt: Date };

/** Emails with failures after `since` and after their last successful sign-in, most failures first. */
export async function listAccountFailures(db: Db, input: { since: Date; limit: number }): Promise<AccountFailureRow[]> {
  const rows = await db
    .selectFrom("sign_in_attempt as a")
    .select((eb) => ["a.email", eb.fn.countAll<string>().as("failures"), eb.fn.max("a.at").as("last_failure")])
    .where("a.succeeded", "=", false)
    .where("a.at", ">", input.since)
    .where("a.at", ">", (eb) =>
      eb.fn.coalesce(
        eb
          .selectFrom("sign_in_attempt as s")
          .select((inner) => inner.fn.max("s.at").as("at"))
          .whereRef("s.email", "=", "a.email")
          .where("s.succeeded", "=", true),
        sql<Date>`${NEVER}::timestamptz`,
      ),
    )
    .groupBy("a.email")
    // The accounts of this desk first: failures under made-up emails never push a real person off the list.
    .orderBy(sql<boolean>`exists (select 1 from auth_user u where u.email = a.email)`, "desc")
    .orderBy("failures", "desc")
    .orderBy("last_failure", "desc")
    .limit(input.limit)
    .execute();
  return rows.map((r) => ({ email: r.email, failures: Number(r.failures), lastFailureAt: new Date(r.last_failure) }));
}

export type AddressFailureRow = { address: string; failures: number; oldestAt: Date; lastFailureAt: Date };

/** Client addresses (known only behind a trusted proxy) with failures after `since`, most failures first. */
export async function listAddressFailures(db: Db, input: { since: Date; limit: number }): Promise<AddressFailureRow[]> {
  const rows = await db
    .selectFrom("sign_in_attempt")
    .select((eb) => [
      "ip",
      eb.fn.countAll<string>().as("failures"),
      eb.fn.min("at").as("oldest"),
      eb.fn.max("at").as("latest"),
    ])
    .where("succeeded", "=", false)
    .where("ip", "<>", "")
    .where("at", ">", input.since)
    .groupBy("ip")
    .orderBy("failures", "desc")
    .limit(input.limit)
    .execute();
  return rows.map((r) => ({
    address: r.ip,
    failures: Number(r.failures),
    oldestAt: new Date(r.oldest),
    lastFailureAt: new Date(r.latest),
  }));
}

/** Forgets the failures of an email or of a client address; returns how many. */
export async function deleteSignInFailures(trx: Db, target: { email: string } | { address: string }): Promise<number> {
  let query = trx.deleteFrom("sign_in_attempt").where("succeeded", "=", false);
  query = "email" in target ? query.where("email", "=", target.email) : query.where("ip", "=", target.address);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes failures recorded before `failuresBefore` and successes before `successesBefore`; how many went. */
export async function pruneSignInAttempts(
  db: Db,
  input: { failuresBefore: Date; successesBefore: Date },
): Promise<number> {
  const gone = await db
    .deleteFrom("sign_in_attempt")
    .where((eb) =>
      eb.or([
        eb.and([eb("succeeded", "=", false), eb("at", "<", input.failuresBefore)]),
        eb.and([eb("succeeded", "=", true), eb("at", "<", input.successesBefore)]),
      ]),
    )
    .executeTakeFirst();
  return Number(gone.numDeletedRows);
}
