import "server-only";
import { sql } from "kysely";
import type { Db } from "../index";

/** The names of the migrations this database has applied; none when the migration table does not exist yet. */
export async function listAppliedMigrations(db: Db): Promise<string[]> {
  const table = await sql<{ exists: boolean }>`select to_regclass('kysely_migration') is not null as exists`.execute(
    db,
  );
  if (!table.rows[0]?.exists) return [];
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.rows.map((row) => row.name);
}
