import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../db";
import { migrateToLatest } from "../../db/migrate";
import { MIGRATIONS } from "../../db/migrations";
import { createTestDatabase, type TestDatabase } from "../support/db";

/**
 * A run of the migrations waits for another run as long as that takes, but for a table in use (a pull holding its
 * lines for hours) only so long: it then gives up having changed nothing, saying why, instead of waiting without end
 * with the tables it already locked stopping everything else.
 */
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

type AnyDb = Kysely<any>;

async function applied(name: string): Promise<boolean> {
  const rows = await sql<{ name: string }>`select name from kysely_migration where name = ${name}`.execute(t.db);
  return rows.rows.length > 0;
}

describe("a run of the migrations", () => {
  it("gives up on a table in use past its limit, changing nothing, then runs once the table is free", async () => {
    const name = "2999_01_01_0000_pace_probe";
    const migrations = {
      ...MIGRATIONS,
      [name]: {
        up: async (db: AnyDb) => void (await sql`alter table service_pace add column probe integer`.execute(db)),
      },
    };
    const holder = createDb(t.url, { max: 1 });
    try {
      await holder.connection().execute(async (connection) => {
        // A long transaction reading the table, as a pull's would.
        await sql`begin`.execute(connection);
        await sql`lock table service_pace in access share mode`.execute(connection);
        await expect(migrateToLatest(t.db, { lockTimeoutMs: 300, migrations })).rejects.toThrow(
          /failed: canceling statement due to lock timeout \(nothing was changed: a table it changes was in use/,
        );
        await sql`rollback`.execute(connection);
      });
    } finally {
      await holder.destroy();
    }
    expect(await applied(name)).toBe(false);
    await expect(migrateToLatest(t.db, { lockTimeoutMs: 300, migrations })).resolves.toEqual({ applied: [name] });
    expect(await applied(name)).toBe(true);
  });

  it("waits for another run however long it takes (the limit is on tables); the second applies nothing", async () => {
    const name = "2999_01_02_0000_slow";
    const migrations = {
      ...MIGRATIONS,
      "2999_01_01_0000_pace_probe": { up: async () => undefined },
      [name]: { up: async (db: AnyDb) => void (await sql`select pg_sleep(0.6)`.execute(db)) },
    };
    const runs = await Promise.all([
      migrateToLatest(t.db, { lockTimeoutMs: 200, migrations }),
      migrateToLatest(t.db, { lockTimeoutMs: 200, migrations }),
    ]);
    expect(runs.map((run) => run.applied).sort()).toEqual([[], [name]]);
  });

  it("leaves one that needs the earlier release stopped to `desk migrate` on an existing database", async () => {
    const name = "2999_01_03_0000_exclusive";
    const migrations = {
      ...MIGRATIONS,
      "2999_01_01_0000_pace_probe": { up: async () => undefined },
      "2999_01_02_0000_slow": { up: async () => undefined },
      [name]: { up: async () => undefined, exclusive: true },
    };
    await expect(migrateToLatest(t.db, { migrations })).rejects.toThrow(
      `migration ${name} needs every instance of the earlier release stopped first`,
    );
    expect(await applied(name)).toBe(false);
    await expect(migrateToLatest(t.db, { migrations, stopped: true })).resolves.toEqual({ applied: [name] });
  });
});
