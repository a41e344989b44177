import "server-only";
import type { DbOrTrx, Trx } from "@/db";
import type { Role } from "@/db/types";
import { countRows } from "./paging";

/** Users as the desk manages them (better-auth writes the rows; roles are changed here). */

export type UserRow = { id: string; email: string; name: string; role: Role; createdAt: Date };

function toUser(r: { id: string; email: string; name: string; role: Role; created_at: Date }): UserRow {
  return { id: r.id, email: r.email, name: r.name, role: r.role, createdAt: r.created_at };
}

export async function findUserIdByEmail(db: DbOrTrx, email: string): Promise<string | null> {
  const row = await db.selectFrom("auth_user").select("id").where("email", "=", email).executeTakeFirst();
  return row?.id ?? null;
}

/** The ids of every admin, locked until the transaction ends (so that two demotions cannot both pass a count). */
export async function lockAdminIds(trx: Trx): Promise<string[]> {
  const rows = await trx.selectFrom("auth_user").select("id").where("role", "=", "admin").forUpdate().execute();
  return rows.map((r) => r.id);
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
  const rows = await db
    .selectFrom("auth_user")
    .select(["id", "email", "name", "role", "created_at"])
    .orderBy("email")
    .execute();
  return rows.map(toUser);
}

export async function countAdminUsers(db: DbOrTrx): Promise<number> {
  return countRows(db.selectFrom("auth_user").where("role", "=", "admin"));
}
