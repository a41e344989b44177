import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db";

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
