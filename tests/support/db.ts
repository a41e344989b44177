import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { createDb, type Db } from "../../db";

import { assertLocal } from "./local";

export { assertLocal };

export type TestDatabase = { url: string; db: Db; drop(): Promise<void> };

/**
 * A new, migrated database on the run's throwaway cluster: a copy of the run's template, migrated once when the run
 * started (tests/support/global-setup.ts). With `migrate: false` an empty one, for tests of the migrations.
 */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = inject("pgAdminUrl");
  assertLocal(adminUrl);
  const name = `test_${randomBytes(6).toString("hex")}`;
  const migrated = options.migrate !== false;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}${migrated ? ` template ${inject("pgTemplate")}` : ""}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = createDb(url.toString(), { max: 5 });
  return {
    url: url.toString(),
    db,
    async drop() {
      await db.destroy();
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** Points lib/env.ts (DATABASE_URL, PAYOUT_DESK_KEY) at a test database, for code that reads the environment. */
export function applyTestEnv(database: TestDatabase): void {
  process.env.DATABASE_URL = database.url;
  process.env.PAYOUT_DESK_KEY ??= randomBytes(32).toString("base64");
  process.env.LOG_LEVEL ??= "silent";
}
