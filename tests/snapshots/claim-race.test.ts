import { randomUUID } from "node:crypto";
import { type DatabaseConnection, type Driver, Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { insertQueuedPull } from "@/db/queries/snapshot-pulls";
import { saveGame } from "@/lib/games/games";
import { stopBoss } from "@/lib/jobs/queue";
import { requestSnapshot } from "@/lib/snapshots/pull";
import { failPull } from "@/lib/snapshots/pull-common";
import { parseWindow } from "@/lib/time";
import { applyTestEnv, createTestDatabase, type TestDatabase } from "../support/db";

/**
 * A request for a window whose active pull ends between the request's insert (refused: the window is held) and its
 * look-up of the pull holding it (gone by then): the window is free, so the request claims it. The race is made
 * certain by a connection that ends the held pull just before that look-up runs.
 */

const WINDOW = parseWindow("2026-03-01", "2026-04-01");
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await saveGame(
    t.db,
    {
      id: "g-race",
      name: "Race",
      environment: "sandbox",
      baseUrl: "http://127.0.0.1:9",
      secret: "gs_test_race_1234",
      webhookSecrets: [],
    },
    { replace: false, as: { actor: null, via: "cli" } },
  );
});
afterAll(async () => {
  await stopBoss();
  await t?.drop();
});

/** A Kysely on the test database whose first read of snapshot_pull after a refused insert first runs `meanwhile`. */
function racingDb(meanwhile: () => Promise<void>): { db: Db; raced: () => boolean } {
  let refused = false;
  let raced = false;
  const patched = new WeakSet<DatabaseConnection>();
  const patch = (connection: DatabaseConnection) => {
    if (patched.has(connection)) return;
    patched.add(connection);
    const execute = connection.executeQuery.bind(connection);
    connection.executeQuery = (async (query) => {
      const pulls = query.sql.includes('"snapshot_pull"');
      if (pulls && refused && !raced && /^select/i.test(query.sql)) {
        raced = true;
        await meanwhile();
      }
      try {
        return await execute(query);
      } catch (error) {
        if (pulls && (error as { code?: string }).code === "23505") refused = true;
        throw error;
      }
    }) as DatabaseConnection["executeQuery"];
  };
  const dialect = new PostgresDialect({ pool: new pg.Pool({ connectionString: t.url, max: 2 }) });
  const driver = dialect.createDriver();
  const racing = new Proxy(driver, {
    get(target, property) {
      if (property === "acquireConnection")
        return async () => {
          const connection = await target.acquireConnection();
          patch(connection);
          return connection;
        };
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as Driver;
  const db: Db = new Kysely({
    dialect: {
      createAdapter: () => dialect.createAdapter(),
      createDriver: () => racing,
      createIntrospector: (kysely) => dialect.createIntrospector(kysely),
      createQueryCompiler: () => dialect.createQueryCompiler(),
    },
  });
  return { db, raced: () => raced };
}

describe("claiming a window", () => {
  it("claims it when the pull holding it ends between the refused insert and the look-up", async () => {
    const held = randomUUID();
    await insertQueuedPull(t.db, { id: held, gameId: "g-race", window: WINDOW, via: "test", requestedBy: null });
    const racing = racingDb(() => failPull(t.db, held, "TEST_ENDED", "Ended while another request asked."));
    try {
      const asked = await requestSnapshot(racing.db, {
        gameId: "g-race",
        window: WINDOW,
        requestedBy: null,
        via: "test",
      });
      expect(racing.raced()).toBe(true);
      expect(asked.deduplicated).toBe(false);
      expect(asked.pullId).not.toBe(held);
      const pulls = await t.db
        .selectFrom("snapshot_pull")
        .select(["id", "status"])
        .where("game_id", "=", "g-race")
        .orderBy("requested_at")
        .execute();
      expect(pulls).toEqual([
        { id: held, status: "failed" },
        { id: asked.pullId, status: "queued" },
      ]);
    } finally {
      await racing.db.destroy();
    }
  });

  it("tells the person to try again when every claim meets a pull that has ended by its look-up", async () => {
    // Each insert is refused as if a pull held the window, and each look-up finds none holding it any more.
    const refusing = new Proxy(t.db, {
      get(target, property) {
        if (property === "transaction")
          return () => ({
            execute: async () => {
              throw Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" });
            },
          });
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const window = parseWindow("2026-07-01", "2026-08-01");
    await expect(
      requestSnapshot(refusing, { gameId: "g-race", window, requestedBy: null, via: "test" }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: "Other pulls of this window kept starting and ending; try again in a moment.",
    });
  });

  it("says when the pull it joins was already reading, and when it had not begun", async () => {
    const window = parseWindow("2026-05-01", "2026-06-01");
    const held = randomUUID();
    await insertQueuedPull(t.db, { id: held, gameId: "g-race", window, via: "test", requestedBy: null });
    const ask = () => requestSnapshot(t.db, { gameId: "g-race", window, requestedBy: null, via: "test" });
    // Queued: it reads the window from its start, after this request.
    expect(await ask()).toEqual({ pullId: held, deduplicated: true, readingAlready: false });
    // Reading (its worker alive): a change made just before this request may be missing from it.
    await t.db
      .updateTable("snapshot_pull")
      .set({ status: "running", started_at: new Date(), heartbeat_at: new Date() })
      .where("id", "=", held)
      .execute();
    expect(await ask()).toEqual({ pullId: held, deduplicated: true, readingAlready: true });
    await failPull(t.db, held, "TEST_ENDED", "Done with it.");
  });
});
