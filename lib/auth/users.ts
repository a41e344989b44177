import "server-only";
import { z } from "zod";
import type { Db } from "@/db";
import { AppError } from "@/lib/errors";
import { getAuth } from "./auth";
import { type Role, roleSchema } from "./roles";

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

export type UserRow = { id: string; email: string; name: string; role: Role; createdAt: Date };

/** Creates a user with a credential account through better-auth (its scrypt hash, its tables). */
export async function createUser(db: Db, input: NewUser): Promise<UserRow> {
  const data = newUserSchema.parse(input);
  const existing = await db.selectFrom("auth_user").select("id").where("email", "=", data.email).executeTakeFirst();
  if (existing) throw new AppError("CONFLICT", `A user with email ${data.email} already exists.`, { field: "email" });
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
  await ctx.internalAdapter.linkAccount({
    userId: user.id,
    providerId: "credential",
    accountId: user.id,
    password: hash,
  });
  return { id: user.id, email: user.email, name: user.name, role: data.role, createdAt: user.createdAt };
}

/**
 * Changes a role. The last admin cannot be demoted: the admins are locked while counting, so two admins demoting
 * each other at the same moment cannot leave nobody able to manage users.
 */
export async function setUserRole(db: Db, userId: string, role: Role): Promise<UserRow> {
  return db.transaction().execute(async (trx) => {
    const admins = await trx.selectFrom("auth_user").select("id").where("role", "=", "admin").forUpdate().execute();
    if (role !== "admin" && admins.some((a) => a.id === userId) && admins.length <= 1) {
      throw new AppError("CONFLICT", "This is the last admin; make another user admin first.", { field: "role" });
    }
    const row = await trx
      .updateTable("auth_user")
      .set({ role, updated_at: new Date() })
      .where("id", "=", userId)
      .returning(["id", "email", "name", "role", "created_at"])
      .executeTakeFirst();
    if (!row) throw new AppError("NOT_FOUND", "No such user.");
    return { id: row.id, email: row.email, name: row.name, role: row.role, createdAt: row.created_at };
  });
}

export async function listUsers(db: Db): Promise<UserRow[]> {
  const rows = await db
    .selectFrom("auth_user")
    .select(["id", "email", "name", "role", "created_at"])
    .orderBy("email")
    .execute();
  return rows.map((r) => ({ id: r.id, email: r.email, name: r.name, role: r.role, createdAt: r.created_at }));
}

export async function countAdmins(db: Db): Promise<number> {
  const row = await db
    .selectFrom("auth_user")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("role", "=", "admin")
    .executeTakeFirstOrThrow();
  return Number.parseInt(row.n, 10);
}
