import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, poolOf } from "../../db";
import { migrateToLatest } from "../../db/migrate";
import { MIGRATIONS } from "../../db/migrations";
import { checkReadiness } from "../../lib/health";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

describe("readiness", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase({ migrate: false });
    applyTestEnv(t);
  });
  afterAll(async () => t.drop());

  it("is not ready before the migrations ran, and says how many are pending", async () => {
    expect(await checkReadiness(t.db)).toEqual({
      ready: false,
      reason: "migrations_pending",
      pending: Object.keys(MIGRATIONS).length,
    });
  });

  it("is ready once every migration this build knows is applied, and the route answers 200", async () => {
    await migrateToLatest(t.db);
    expect(await checkReadiness(t.db)).toEqual({ ready: true });
    const { GET } = await import("../../app/api/health/ready/route");
    const response = await GET(new Request("http://localhost/api/health/ready"), { params: Promise.resolve({}) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ready" });
  });

  it("stays ready when a newer build applied a migration this one does not know", async () => {
    await sql`insert into kysely_migration (name, timestamp) values ('2999_01_01_0000_from_a_newer_build',
        now()::text)`.execute(t.db);
    expect(await checkReadiness(t.db)).toEqual({ ready: true });
  });

  it("is not ready when the database does not answer", async () => {
    const url = new URL(t.url);
    url.port = "1";
    const unreachable = createDb(url.toString(), { max: 1 });
    try {
      expect(await checkReadiness(unreachable)).toEqual({ ready: false, reason: "database_unreachable" });
    } finally {
      await unreachable.destroy();
    }
  });

  it("is not ready, rather than waiting, when no connection of the pool comes free in time", async () => {
    const busy = createDb(t.url, { max: 1 });
    const holding = await busy.startTransaction().execute();
    try {
      expect(await checkReadiness(busy, { waitMs: 300 })).toEqual({ ready: false, reason: "database_unreachable" });
      // Probes meanwhile share the question already waiting rather than queue one each.
      expect(await checkReadiness(busy, { waitMs: 100 })).toEqual({ ready: false, reason: "database_unreachable" });
      expect(poolOf(busy).waitingCount).toBe(1);
    } finally {
      await holding.rollback().execute();
    }
    expect(await checkReadiness(busy, { waitMs: 30_000 })).toEqual({ ready: true });
    await busy.destroy();
  });

  it("asks anew once the question it shares has waited too long, and is ready when that one is answered", async () => {
    const busy = createDb(t.url, { max: 1 });
    const holding = await busy.startTransaction().execute();
    try {
      expect(await checkReadiness(busy, { waitMs: 100 })).toEqual({ ready: false, reason: "database_unreachable" });
      expect(poolOf(busy).waitingCount).toBe(1);
      // The first question is stuck (here behind the held connection; elsewhere on a socket whose peer vanished).
      expect(await checkReadiness(busy, { waitMs: 100, shareMs: 0 })).toEqual({
        ready: false,
        reason: "database_unreachable",
      });
      expect(poolOf(busy).waitingCount).toBe(2);
    } finally {
      await holding.rollback().execute();
    }
    expect(await checkReadiness(busy, { waitMs: 30_000 })).toEqual({ ready: true });
    await busy.destroy();
  });
});
