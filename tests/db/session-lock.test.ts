import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdSessionLock } from "@/db/queries/locks";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { advisoryLockHolders } from "../support/advisory-locks";
import { waitFor } from "../support/wait";

/**
 * A session lock is held on a connection that sits idle while its work runs (a pull holds its window's lock for the
 * whole pull). A database that ends that connection meanwhile (a restart, a failover) must not take the process down.
 */

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const holders = () => advisoryLockHolders(t.db);

describe("a session lock on a connection of its own", () => {
  it("is held once, and released for the next", async () => {
    const lock = await holdSessionLock(t.db, "test|window");
    expect(lock).not.toBeNull();
    expect(await holdSessionLock(t.db, "test|window")).toBeNull();
    await lock?.release();
    const again = await holdSessionLock(t.db, "test|window");
    expect(again).not.toBeNull();
    await again?.release();
  });

  it("whose connection the database ends is noted lost, released without an error, the lock free", async () => {
    const lock = await holdSessionLock(t.db, "test|cut");
    if (!lock) throw new Error("lock not taken");
    const [pid] = await holders();
    expect(pid).toBeDefined();
    // An unheard error on the idle connection would fail this run (vitest reports it) or end a server's process.
    await sql`select pg_terminate_backend(${pid})`.execute(t.db);
    await waitFor(async () => lock.lost() !== null, { what: "the connection's end to be noticed" });
    expect(String(lock.lost())).toMatch(/terminat/);
    await expect(lock.release()).resolves.toBeUndefined();
    // The ended server process lets its locks go as it exits, which can be a moment after its client heard the end.
    await waitFor(async () => !(await holders()).includes(pid as number), { what: "the ended process to exit" });
    const next = await holdSessionLock(t.db, "test|cut");
    expect(next).not.toBeNull();
    await next?.release();
  });
});
