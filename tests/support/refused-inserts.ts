import { randomBytes } from "node:crypto";
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../../db";

/**
 * Runs `act` while the database refuses the rows inserted into `table` (those `when` holds for, a condition on `new`;
 * every row without one), raising `message`: a full disk, a lost connection, any failure of that one write. The
 * refusal is gone once `act` ends, whatever it did.
 */
export async function whileInsertsRefused<T>(
  db: Db,
  refusal: { table: string; message: string; when?: RawBuilder<unknown> },
  act: () => Promise<T>,
): Promise<T> {
  const name = `refuse_insert_${randomBytes(4).toString("hex")}`;
  await sql`create function ${sql.id(name)}() returns trigger language plpgsql as $$
    begin raise exception ${sql.lit(refusal.message)}; end $$`.execute(db);
  try {
    const when = refusal.when ? sql`when (${refusal.when})` : sql``;
    await sql`create trigger ${sql.id(name)} before insert on ${sql.table(refusal.table)}
      for each row ${when} execute function ${sql.id(name)}()`.execute(db);
    try {
      return await act();
    } finally {
      await sql`drop trigger ${sql.id(name)} on ${sql.table(refusal.table)}`.execute(db);
    }
  } finally {
    await sql`drop function ${sql.id(name)}()`.execute(db);
  }
}
