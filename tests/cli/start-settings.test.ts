import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { type AddressInfo, createServer } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { createUser } from "@/lib/auth/users";
import { saveGame } from "@/lib/games/games";
import { applyTestEnv, createTestDatabase, type TestDatabase } from "../support/db";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase({ migrate: false });
});
afterAll(async () => t?.drop());

describe("npm start with a setting it refuses", () => {
  it("stops naming the setting before it migrates the database", async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: t.url,
      PAYOUT_DESK_KEY: randomBytes(32).toString("base64"),
      NODE_OPTIONS: "",
      LOG_LEVEL: "INFO",
      // Not a port, but --port stands for it: not the setting refused.
      PORT: "nope",
    };
    delete env.PAYOUT_DESK_EMULATOR;
    const started = await run(process.execPath, ["--import", "./bin/register.mjs", "bin/start.ts", "--port", "1"], {
      cwd: ROOT,
      env,
    }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(started.code).toBe(1);
    expect(started.stderr).toContain("Invalid environment variable LOG_LEVEL");
    expect(started.stderr).not.toContain("PORT");
    const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables where table_name = 'kysely_migration'`.execute(t.db);
    expect(tables.rows).toEqual([]);
  });
});

describe("npm start on a port in use", () => {
  it("says so before it prepares anything (a second start beside a running one)", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: t.url,
        PAYOUT_DESK_KEY: randomBytes(32).toString("base64"),
        NODE_OPTIONS: "",
      };
      delete env.PAYOUT_DESK_EMULATOR;
      const started = await run(
        process.execPath,
        ["--import", "./bin/register.mjs", "bin/start.ts", "--port", String(port)],
        { cwd: ROOT, env },
      ).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(started.code).toBe(1);
      expect(started.stderr).toContain(`port ${port} is in use`);
      const tables = await sql<{ name: string }>`
        select table_name as name from information_schema.tables where table_name = 'kysely_migration'`.execute(t.db);
      expect(tables.rows).toEqual([]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe("npm start with PAYOUT_DESK_EMULATOR=on", () => {
  /** Starts the app on `database` with the demo asked for: how it ended. */
  async function startDemo(database: TestDatabase, dataDir: string) {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: database.url,
      NODE_OPTIONS: "",
      PAYOUT_DESK_EMULATOR: "on",
      PAYOUT_DESK_DATA_DIR: dataDir,
    };
    return run(process.execPath, ["--import", "./bin/register.mjs", "bin/start.ts", "--port", "1"], {
      cwd: ROOT,
      env,
    }).then(
      () => ({ code: 0, stdout: "", stderr: "" }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  }

  it("refuses to seed the demo into a database that holds a game or a user of its own", async () => {
    const real = await createTestDatabase();
    const dataDir = await mkdtemp(path.join(tmpdir(), "payout-desk-demo-"));
    try {
      applyTestEnv(real);
      const game = { id: "studio-live", name: "Live", environment: "production" as const, webhookSecrets: [] };
      const live = { ...game, baseUrl: "https://api.example.com", secret: "gs_live_0123456789abcdef" };
      await saveGame(real.db, live, { replace: false, as: { actor: null, via: "cli" } });
      const withGame = await startDemo(real, dataDir);
      expect(withGame.code).toBe(1);
      expect(withGame.stderr).toContain("this one holds other games (studio-live): not a demo database");
      expect(withGame.stdout).not.toContain("Demo sign-ins");
      expect(await real.db.selectFrom("auth_user").select("email").execute()).toEqual([]);

      // A new deployment's first admin, and no game yet.
      await real.db.deleteFrom("game").execute();
      const admin = { email: "cfo@studio.example", role: "admin" as const, password: "a long enough password" };
      await createUser(real.db, admin, { actor: null, via: "cli" });
      const withUser = await startDemo(real, dataDir);
      expect(withUser.code).toBe(1);
      expect(withUser.stderr).toContain("this one holds other users (cfo@studio.example): not a demo database");
      expect((await real.db.selectFrom("auth_user").select("email").execute()).map((u) => u.email)).toEqual([
        "cfo@studio.example",
      ]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
      await real.drop();
    }
  });

  it("refuses before it migrates anything", async () => {
    const fresh = await createTestDatabase({ migrate: false });
    const dataDir = await mkdtemp(path.join(tmpdir(), "payout-desk-demo-"));
    try {
      await sql`create table auth_user (id text primary key, email text not null)`.execute(fresh.db);
      await sql`insert into auth_user values ('u1', 'ops@studio.example')`.execute(fresh.db);
      const started = await startDemo(fresh, dataDir);
      expect(started.code).toBe(1);
      expect(started.stderr).toContain("this one holds other users (ops@studio.example)");
      const tables = await sql<{ name: string }>`
        select table_name as name from information_schema.tables where table_name = 'kysely_migration'`.execute(
        fresh.db,
      );
      expect(tables.rows).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
      await fresh.drop();
    }
  });
});
