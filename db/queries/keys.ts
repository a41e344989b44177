import "server-only";
import { sql } from "kysely";
import type { Db } from "@/db";

export type KeyCheck = { keyId: string; fingerprint: string; createdAt: Date; rotatedAt: Date | null };

/** A column holding sealed values, and the key column that names each row. */
export type SealedColumnRef = { table: string; idColumn: string; column: string };

/**
 * The stored key check. `share` holds sealing writers against a rotation; `update` is the rotation's own lock, so a
 * value sealed concurrently is sealed with the key the rotation leaves behind.
 */
export async function readKeyCheck(db: Db, options: { lock?: "share" | "update" } = {}): Promise<KeyCheck | null> {
  let query = db
    .selectFrom("key_check")
    .select(["key_id", "fingerprint", "created_at", "rotated_at"])
    .where("id", "=", true);
  if (options.lock === "share") query = query.forShare();
  if (options.lock === "update") query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row
    ? { keyId: row.key_id, fingerprint: row.fingerprint, createdAt: row.created_at, rotatedAt: row.rotated_at }
    : null;
}

/** Records the key check unless one exists (the first sealed secret, or two of them at once). */
export async function insertKeyCheckIfAbsent(db: Db, check: { keyId: string; fingerprint: string }): Promise<void> {
  await db
    .insertInto("key_check")
    .values({ id: true, key_id: check.keyId, fingerprint: check.fingerprint })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
}

export async function replaceKeyCheck(db: Db, check: { keyId: string; fingerprint: string }): Promise<void> {
  await db
    .updateTable("key_check")
    .set({ key_id: check.keyId, fingerprint: check.fingerprint, rotated_at: new Date() })
    .where("id", "=", true)
    .execute();
}

/** Every sealed value of a column, with its row's id; `lock` takes the rows for update (a rotation). */
export async function listSealedValues(
  db: Db,
  ref: SealedColumnRef,
  options: { lock?: boolean; limit?: number } = {},
): Promise<{ id: string; sealed: string }[]> {
  const result = await sql<{ id: string; sealed: string }>`
    select ${sql.ref(ref.idColumn)}::text as id, ${sql.ref(ref.column)} as sealed
    from ${sql.table(ref.table)}
    where ${sql.ref(ref.column)} is not null
    order by 1
    ${options.limit ? sql`limit ${options.limit}` : sql``}
    ${options.lock ? sql`for update` : sql``}`.execute(db);
  return result.rows;
}

export async function updateSealedValue(db: Db, ref: SealedColumnRef, id: string, sealed: string): Promise<void> {
  const result = await sql`
    update ${sql.table(ref.table)} set ${sql.ref(ref.column)} = ${sealed}
    where ${sql.ref(ref.idColumn)}::text = ${id}`.execute(db);
  if (result.numAffectedRows !== 1n) throw new Error(`no row ${id} in ${ref.table} to re-seal`);
}
