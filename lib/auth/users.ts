import "server-only";
import { z } from "zod";
import type { Db } from "@/db";
import { lockForTransaction } from "@/db/queries/locks";
import {
  countAdminUsers,
  deleteUnfinishedUser,
  deleteUserAccess,
  deleteUserSessions,
  findUserIdByEmail,
  insertCredentialAccount,
  findUserRow,
  listUserRows,
  lockAdminIds,
  lockUserRole,
  readCredentialHash,
  updateCredentialPassword,
  updateUserRole,
  type UserRow,
} from "@/db/queries/users";
import type { ActingAs } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { type Role, roleSchema } from "./roles";

export type { UserRow };

export const emailSchema = z.string().trim().toLowerCase().email({ message: "must be an email address" }).max(254);
export const passwordSchema = z
  .string()
  .min(10, { message: "must be at least 10 characters" })
  .max(128, { message: "must be at most 128 characters" });

export const newUserSchema = z.object({
  email: emailSchema,
  name: z.string().trim().min(1, { message: "is required" }).max(120).optional(),
  role: roleSchema,
  password: passwordSchema,
});
export type NewUser = z.input<typeof newUserSchema>;

/**
 * Creates a user with a credential account through better-auth (its scrypt hash, its tables), then writes the audit
 * line (better-auth writes through its own connection, outside any transaction of ours; a user whose credential or
 * audit line was not written is taken back).
 */
export async function createUser(db: Db, input: NewUser, as: ActingAs): Promise<UserRow> {
  const data = newUserSchema.parse(input);
  // One creation of an email at a time (two admins adding the same person): the second finds the first's user.
  return db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, `user-create|${data.email}`);
    return createUserNow(db, data, as);
  });
}

async function createUserNow(db: Db, data: z.output<typeof newUserSchema>, as: ActingAs): Promise<UserRow> {
  if (await findUserIdByEmail(db, data.email))
    throw new AppError("CONFLICT", `A user with email ${data.email} already exists.`, { field: "email" });
  // The sign-in library loads only here: the command line's other commands and the pages that list users start
  // without it.
  const { getAuth } = await import("./auth");
  const ctx = await getAuth().$context;
  const hash = await ctx.password.hash(data.password);
  const user = await ctx.internalAdapter.createUser(
    {
      email: data.email,
      name: data.name ?? data.email.split("@")[0] ?? data.email,
      emailVerified: true,
      role: data.role,
    },
    { method: "admin" },
  );
  try {
    await ctx.internalAdapter.linkAccount({
      userId: user.id,
      providerId: "credential",
      accountId: user.id,
      password: hash,
    });
    await recordAudit(db, {
      ...as,
      action: "user.create",
      target: user.email,
      outcome: "succeeded",
      detail: { role: data.role },
    });
  } catch (error) {
    // The sign-in library wrote the user apart: one left without its password or its audit line is taken back, so
    // that no account exists unaudited and trying again creates it whole.
    await deleteUnfinishedUser(db, user.id).catch((cleanup: unknown) =>
      log.error("a user whose creation failed could not be taken back", { user: user.id, error: cleanup }),
    );
    throw error;
  }
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: data.role,
    createdAt: user.createdAt,
    hasAccess: true,
  };
}

/**
 * Changes a role. The last admin cannot be demoted: the admins are locked while counting, so two admins demoting
 * each other at the same moment cannot leave nobody able to manage users.
 */
export async function setUserRole(db: Db, userId: string, role: Role, as: ActingAs): Promise<UserRow> {
  return db.transaction().execute(async (trx) => {
    const admins = await lockAdminIds(trx);
    if (role !== "admin" && admins.includes(userId) && admins.length <= 1) {
      throw new AppError("CONFLICT", "This is the last admin; make another user admin first.", { field: "role" });
    }
    const from = await lockUserRole(trx, userId);
    const changed = from === null ? null : await updateUserRole(trx, { userId, role });
    if (!changed) throw new AppError("NOT_FOUND", "No such user.");
    // A role set to what it was changes nothing and writes no line.
    if (from === role) return changed;
    await recordAudit(trx, {
      ...as,
      action: "user.change_role",
      target: changed.email,
      outcome: "succeeded",
      detail: { from, role },
    });
    return changed;
  });
}

/**
 * Removes a user's access: every session ends and their password is deleted, so they cannot sign in again until an
 * admin sets a new one (`setUserPassword`). The user and their audit lines stay. Nobody removes their own access, and
 * the last admin who can sign in keeps theirs.
 */
export async function removeUserAccess(
  db: Db,
  userId: string,
  as: ActingAs,
): Promise<{ email: string; sessionsEnded: number }> {
  if (as.actor?.id === userId)
    throw new AppError("CONFLICT", "You cannot remove your own access; another admin does.", { field: "userId" });
  return db.transaction().execute(async (trx) => {
    const admins = await lockAdminIds(trx);
    if (admins.includes(userId) && admins.length <= 1)
      throw new AppError("CONFLICT", "This is the last admin who can sign in; make another user admin first.", {
        field: "userId",
      });
    const role = await lockUserRole(trx, userId);
    const user = role === null ? null : await findUserRow(trx, userId);
    if (!user) throw new AppError("NOT_FOUND", "No such user.");
    if (!user.hasAccess) throw new AppError("CONFLICT", `${user.email} has no access already.`, { field: "userId" });
    const sessionsEnded = await deleteUserAccess(trx, userId);
    await recordAudit(trx, {
      ...as,
      action: "user.remove_access",
      target: user.email,
      outcome: "succeeded",
      detail: { role, sessionsEnded },
    });
    return { email: user.email, sessionsEnded };
  });
}

/**
 * Sets a user's password (a leaked one replaced, or access given back after it was removed) and signs them out
 * everywhere else; an admin setting their own keeps the session they do it from. Audited, without the password.
 */
export async function setUserPassword(
  db: Db,
  params: { userId: string; password: string; keepSessionId?: string },
  as: ActingAs,
): Promise<{ email: string; restored: boolean; sessionsEnded: number }> {
  const password = passwordSchema.parse(params.password);
  const user = await findUserRow(db, params.userId);
  if (!user) throw new AppError("NOT_FOUND", "No such user.");
  const { getAuth } = await import("./auth");
  const ctx = await getAuth().$context;
  const hash = await ctx.password.hash(password);
  const keep = as.actor?.id === user.id ? (params.keepSessionId ?? null) : null;
  // The password, the sessions ended and the audit line are one transaction: one is never without the others. The
  // user's row is locked, so a removal of access at the same moment comes wholly before or after.
  const outcome = await db.transaction().execute(async (trx) => {
    if ((await lockUserRole(trx, user.id)) === null) throw new AppError("NOT_FOUND", "No such user.");
    // No password on record (access removed): the credential account is written anew.
    const restored = !(await updateCredentialPassword(trx, user.id, hash));
    if (restored) await insertCredentialAccount(trx, user.id, hash);
    const action = restored ? "user.restore_access" : "user.set_password";
    const sessionsEnded = await deleteUserSessions(trx, user.id, keep);
    await recordAudit(trx, { ...as, action, target: user.email, outcome: "succeeded", detail: { sessionsEnded } });
    return { restored, sessionsEnded };
  });
  return { email: user.email, ...outcome };
}

export async function listUsers(db: Db): Promise<UserRow[]> {
  return listUserRows(db);
}

export async function countAdmins(db: Db): Promise<number> {
  return countAdminUsers(db);
}

/** Whether `password` is still the password of the account with this email (false without one). Writes nothing. */
export async function passwordStillIs(db: Db, email: string, password: string): Promise<boolean> {
  const hash = await readCredentialHash(db, email);
  if (hash === null) return false;
  const { getAuth } = await import("./auth");
  const ctx = await getAuth().$context;
  return ctx.password.verify({ hash, password });
}
