import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest, MINIMUM_SERVER_VERSION, refuseOldServer } from "../../db/migrate";
import { createTestDatabase, type TestDatabase } from "../support/db";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ migrate: false });
});
afterAll(async () => t?.drop());

describe("the PostgreSQL server", () => {
  it("is at least the oldest version the README supports", async () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, "../../README.md"), "utf8");
    const documented = /oldest supported PostgreSQL is (\d+)/.exec(readme)?.[1];
    expect(documented).toBe(String(MINIMUM_SERVER_VERSION.major));
    const { rows } = await sql<{ v: string }>`select current_setting('server_version_num') as v`.execute(t.db);
    expect(Number(rows[0]?.v)).toBeGreaterThanOrEqual(MINIMUM_SERVER_VERSION.num);
  });

  it("is refused by the migrator, with the version it found, when older than that", async () => {
    expect(() => refuseOldServer(140012, "14.12 (Debian 14.12-1)")).toThrow(
      "PostgreSQL 15 or newer is required; this server is 14.12 (Debian 14.12-1)",
    );
    expect(() => refuseOldServer(150000, "15.0")).not.toThrow();
    await expect(migrateToLatest(t.db, { minimumServerVersion: { major: 99, num: 990000 } })).rejects.toThrow(
      /^PostgreSQL 99 or newer is required; this server is \d+/,
    );
    expect(
      (
        await sql<{ n: number }>`select count(*)::int as n from pg_tables where tablename = 'kysely_migration'`.execute(
          t.db,
        )
      ).rows[0]?.n,
    ).toBe(0);
    await expect(migrateToLatest(t.db)).resolves.toMatchObject({ applied: expect.any(Array) });
  });

  it("leaves a database a newer release migrated as it is (rolling deploy) once it has every known one", async () => {
    await migrateToLatest(t.db);
    const future = "2099_01_01_0000_a_later_release";
    await sql`insert into kysely_migration (name, timestamp) values (${future}, now()::text)`.execute(t.db);
    await expect(migrateToLatest(t.db)).resolves.toEqual({ applied: [] });
    // One of this release's own missing beside it: refused, naming both.
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name limit 1`.execute(t.db);
    const first = rows[0]?.name ?? "";
    await sql`delete from kysely_migration where name = ${first}`.execute(t.db);
    await expect(migrateToLatest(t.db)).rejects.toThrow(
      `the database has migrations of a newer release (${future}) but not ${first} of this one`,
    );
  });
});
