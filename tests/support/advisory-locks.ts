import { sql } from "kysely";
import type { Db } from "../../db";

/** The sessions holding an advisory lock in this database (other test files share the server, locks and all). */
export async function advisoryLockHolders(db: Db): Promise<number[]> {
  const { rows } = await sql<{ pid: number }>`select pid from pg_locks where locktype = 'advisory' and granted
    and database = (select oid from pg_database where datname = current_database())`.execute(db);
  return rows.map((r) => r.pid);
}
