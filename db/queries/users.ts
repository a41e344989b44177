import "server-only";
import { randomUUID } from "node:crypto";
import { type ExpressionBuilder, type SqlBool, sql } from "kysely";
import type { Db, DbOrTrx, Trx } from "@/db";
import type { Database } from "@/db/types";
import type { Role } from "@/db/types";
import { countRows } from "./paging";

/** Users as the desk manages them (better-auth writes the rows; roles are changed here). */

export type UserRow = {
  id: string;
  email: string;
  name: string;
  role: Role;
  createdAt: Date;
  /** The user has a password to sign in with (an admin removes it to remove their access). */
  hasAccess: boolean;
};

function toUser(r: {
  id: string;
  email: string;
  name: string;
  role: Role;
  created_at: Date;
  has_access?: SqlBool;
}): UserRow {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    role: r.role,
    createdAt: r.created_at,
    hasAccess: r.has_access === undefined ? true : Boolean(r.has_access),
  };
}

const CREDENTIAL = "credential";

/** The user `u` has a password to sign in with (better-auth's credential account). */
function hasCredential(eb: ExpressionBuilder<Database & { u: Database["auth_user"] }, "u">) {
  return eb.exists(
    eb
      .selectFrom("auth_account as a")
      .select("a.id")
      .whereRef("a.user_id", "=", "u.id")
      .where("a.provider_id", "=", CREDENTIAL),
  );
}

/** Users with whether they can sign in, for listing or finding one. */
function usersWithAccess(db: DbOrTrx) {
  return db
    .selectFrom("auth_user as u")
    .select(["u.id", "u.email", "u.name", "u.role", "u.created_at"])
    .select((eb) => hasCredential(eb).as("has_access"));
}

export async function findUserIdByEmail(db: DbOrTrx, email: string): Promise<string | null> {
  const row = await db.selectFrom("auth_user").select("id").where("email", "=", email).executeTakeFirst();
  return row?.id ?? null;
}

/**
 * The ids of every admin who can sign in (has a password), locked until the transaction ends (so that two demotions,
 * or removals of access, cannot both pass a count).
 */
export async function lockAdminIds(trx: Trx): Promise<string[]> {
  // Every admin's row is locked first; who of them can sign in is read by a statement of its own, which sees what a
  // change that held these locks committed (a locking read does not read a password deleted meanwhile again), so two
  // admins removing each other's access at once cannot both count two.
  await trx.selectFrom("auth_user").select("id").where("role", "=", "admin").forUpdate().execute();
  const rows = await trx
    .selectFrom("auth_user as u")
    .select("u.id")
    .where("u.role", "=", "admin")
    .where(hasCredential)
    .execute();
  return rows.map((r) => r.id);
}

/** Signs the user out everywhere and deletes their password; how many sessions ended. */
export async function deleteUserAccess(trx: Trx, userId: string): Promise<number> {
  const sessions = await trx.deleteFrom("auth_session").where("user_id", "=", userId).executeTakeFirst();
  await trx.deleteFrom("auth_account").where("user_id", "=", userId).where("provider_id", "=", CREDENTIAL).execute();
  return Number(sessions.numDeletedRows);
}

/** Ends the user's sessions but the one kept (null: every one); how many ended. */
export async function deleteUserSessions(db: DbOrTrx, userId: string, keepSessionId: string | null): Promise<number> {
  let query = db.deleteFrom("auth_session").where("user_id", "=", userId);
  if (keepSessionId !== null) query = query.where("id", "<>", keepSessionId);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}

/** The user's password hash is replaced (true), or they have none (false). */
export async function updateCredentialPassword(db: DbOrTrx, userId: string, hash: string): Promise<boolean> {
  const done = await db
    .updateTable("auth_account")
    .set({ password: hash, updated_at: new Date() })
    .where("user_id", "=", userId)
    .where("provider_id", "=", CREDENTIAL)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

/** Gives a user without one a password: their credential account, as the sign-in library writes it. */
export async function insertCredentialAccount(db: DbOrTrx, userId: string, hash: string): Promise<void> {
  const now = new Date();
  await db
    .insertInto("auth_account")
    .values({
      id: randomUUID(),
      account_id: userId,
      provider_id: CREDENTIAL,
      user_id: userId,
      password: hash,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** A user's role, the row locked until the transaction ends; null when there is no such user. */
export async function lockUserRole(trx: Trx, userId: string): Promise<Role | null> {
  const row = await trx.selectFrom("auth_user").select("role").where("id", "=", userId).forUpdate().executeTakeFirst();
  return row?.role ?? null;
}

export async function updateUserRole(db: DbOrTrx, params: { userId: string; role: Role }): Promise<UserRow | null> {
  const row = await db
    .updateTable("auth_user")
    .set({ role: params.role, updated_at: new Date() })
    .where("id", "=", params.userId)
    .returning(["id", "email", "name", "role", "created_at"])
    .executeTakeFirst();
  return row ? toUser(row) : null;
}

export async function listUserRows(db: DbOrTrx): Promise<UserRow[]> {
  const rows = await usersWithAccess(db).orderBy("u.email").execute();
  return rows.map(toUser);
}

export async function findUserRow(db: DbOrTrx, userId: string): Promise<UserRow | null> {
  const row = await usersWithAccess(db).where("u.id", "=", userId).executeTakeFirst();
  return row ? toUser(row) : null;
}

export async function countAdminUsers(db: DbOrTrx): Promise<number> {
  return countRows(db.selectFrom("auth_user").where("role", "=", "admin"));
}

/**
 * The password hash an email signs in with now (null: no such user, or no password): read before and after a
 * sign-in, it tells whether access was removed or the password replaced while the sign-in checked it.
 */
export async function readCredentialHash(db: DbOrTrx, email: string): Promise<string | null> {
  const row = await db
    .selectFrom("auth_user as u")
    .innerJoin("auth_account as a", "a.user_id", "u.id")
    .select("a.password")
    .where(sql<boolean>`lower(u.email) = lower(${email})`)
    .where("a.provider_id", "=", CREDENTIAL)
    .executeTakeFirst();
  return row?.password ?? null;
}

/** Ends one session, by its token. */
export async function deleteSessionByToken(db: DbOrTrx, token: string): Promise<void> {
  await db.deleteFrom("auth_session").where("token", "=", token).execute();
}

/**
 * Takes back a user whose creation did not finish (its credential or its audit line not written): its sessions,
 * accounts and the user, so that no account exists without its password or its audit line.
 */
export async function deleteUnfinishedUser(db: Db, userId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom("auth_session").where("user_id", "=", userId).execute();
    await trx.deleteFrom("auth_account").where("user_id", "=", userId).execute();
    await trx.deleteFrom("auth_user").where("id", "=", userId).execute();
  });
}
