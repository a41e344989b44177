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
});
