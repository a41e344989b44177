import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyId, openSecret } from "../../lib/crypto";
import { SEALED_COLUMNS } from "../../lib/keys/sealed-columns";
import { listSealedValues } from "../../db/queries/keys";
import { createTestDatabase, type TestDatabase } from "../support/db";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const K1 = randomBytes(32);
const K2 = randomBytes(32);
const K3 = randomBytes(32);
const b64 = (key: Buffer) => key.toString("base64");
let t: TestDatabase;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-keys-"));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await t?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Env = { key: Buffer; previous?: Buffer };
type Result = { code: number; stdout: string; stderr: string };

function envFor(keys: Env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: t.url,
    PAYOUT_DESK_KEY: b64(keys.key),
    NODE_OPTIONS: "",
    LOG_LEVEL: "silent",
  };
  delete env.PAYOUT_DESK_KEY_PREVIOUS;
  delete env.PAYOUT_DESK_EMULATOR;
  if (keys.previous) env.PAYOUT_DESK_KEY_PREVIOUS = b64(keys.previous);
  return env;
}

async function node(script: string[], keys: Env, ...args: string[]): Promise<Result> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...script, ...args], {
      cwd: ROOT,
      env: envFor(keys),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const desk = (keys: Env, ...args: string[]) => node(["bin/desk.mjs"], keys, ...args);
const lines = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter((l) => l !== "" && !l.includes("nodedir"));
const addGame = (keys: Env, id: string, ...extra: string[]) =>
  desk(
    keys,
    "games",
    "add",
    "--id",
    id,
    "--name",
    id,
    "--env",
    "sandbox",
    "--base-url",
    "http://127.0.0.1:9",
    "--secret",
    `gs_test_${id}_secret_1234`,
    "--webhook-secret",
    `whsec_${id}_5678`,
    ...extra,
  );
const mismatchLine = (stored: Buffer, given: Buffer) =>
  `PAYOUT_DESK_KEY is not the key these secrets were sealed with; the stored key id is ${keyId(stored)} (this key's ` +
  `id is ${keyId(given)})`;

async function sealedValues(): Promise<{ context: string; sealed: string }[]> {
  const all = [];
  for (const column of SEALED_COLUMNS) {
    for (const row of await listSealedValues(t.db, column))
      all.push({ context: column.context(row.id), sealed: row.sealed });
  }
  return all;
}
const allOpenWith = async (key: Buffer) =>
  (await sealedValues()).every((v) => {
    try {
      openSecret(v.sealed, v.context, key);
      return true;
    } catch {
      return false;
    }
  });

async function keyFile(key: Buffer): Promise<string> {
  const file = path.join(dir, `${keyId(key)}.key`);
  await writeFile(file, `${b64(key)}\n`, { mode: 0o600 });
  return file;
}

describe("a key that is not the one the secrets were sealed with", () => {
  it("is refused by every command that needs secrets, with one line naming the stored key id", async () => {
    expect((await addGame({ key: K1 }, "g1")).code).toBe(0);
    for (const args of [
      [
        "games",
        "add",
        "--id",
        "g2",
        "--name",
        "g2",
        "--env",
        "sandbox",
        "--base-url",
        "http://127.0.0.1:9",
        "--secret",
        "gs_test_g2_secret_1234",
      ],
      ["snapshot", "--game", "g1", "--month", "2026-03"],
      ["keys", "rotate", "--new-key-file", await keyFile(K3)],
    ]) {
      const refused = await desk({ key: K2 }, ...args);
      expect(refused.code, args.join(" ")).toBe(1);
      expect(lines(refused.stderr)).toEqual([
        `desk ${args[0] === "snapshot" ? "snapshot" : `${args[0]} ${args[1]}`}: ${mismatchLine(K1, K2)}`,
      ]);
      expect(refused.stdout).toBe("");
    }
    // Commands that touch no secret still work.
    expect((await desk({ key: K2 }, "games", "list")).code).toBe(0);
    expect(await allOpenWith(K1)).toBe(true);
  });

  it("stops npm start before it builds or serves anything", async () => {
    const started = await node(["--import", "./bin/register.mjs", "bin/start.ts"], { key: K2 }, "--port", "1");
    expect(started.code).toBe(1);
    expect(lines(started.stderr)).toEqual([`start: ${mismatchLine(K1, K2)}`]);
    expect(started.stdout).not.toContain("Building");
  });
});

describe("npm run desk -- keys rotate", () => {
  it("leaves the old key working when the process is killed between re-sealing and commit", async () => {
    const before = await sealedValues();
    const blocker = new pg.Client({ connectionString: t.url });
    await blocker.connect();
    // The rotation's last write is its audit line: holding the audit table makes it wait there, everything re-sealed.
    await blocker.query("begin");
    await blocker.query("lock table audit_log in share mode");
    const child = spawn(process.execPath, ["bin/desk.mjs", "keys", "rotate", "--new-key-file", await keyFile(K3)], {
      cwd: ROOT,
      env: envFor({ key: K1 }),
      stdio: "ignore",
    });
    children.push(child);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    for (;;) {
      // Asked outside the blocker's transaction, which would keep seeing its first snapshot of pg_stat_activity.
      const waiting = await sql<{ pid: number }>`select pid from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query ilike
        'insert into "audit_log"%'`.execute(t.db);
      if (waiting.rows.length === 1) break;
      if (child.exitCode !== null)
        throw new Error(`the rotation exited (${child.exitCode}) before reaching its audit line`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill("SIGKILL");
    await exited;
    await blocker.query("rollback");
    await blocker.end();

    // The killed rotation's backend rolls back once it finds its client gone.
    while ((await openTransactions()) > 0) await new Promise((r) => setTimeout(r, 50));
    expect(await sealedValues()).toEqual(before);
    expect(await allOpenWith(K1)).toBe(true);
    expect(await t.db.selectFrom("key_check").select("key_id").execute()).toEqual([{ key_id: keyId(K1) }]);
    expect((await addGame({ key: K1 }, "g1", "--replace")).code).toBe(0);
    expect((await addGame({ key: K3 }, "g1", "--replace")).code).toBe(1);
  });

  it("re-seals everything, prints its summary, and from then on only the new key opens the secrets", async () => {
    expect((await addGame({ key: K1 }, "g3")).code).toBe(0);
    // An instance already rolled out with the new key and the old one as previous is accepted before the switch.
    expect((await addGame({ key: K2, previous: K1 }, "g4")).code).toBe(0);
    const rotated = await desk({ key: K1 }, "keys", "rotate", "--new-key-file", await keyFile(K2));
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(JSON.parse(rotated.stdout)).toEqual({
      rotated: true,
      previousKeyId: keyId(K1),
      keyId: keyId(K2),
      resealed: {
        "game.secret_sealed": 3,
        "game.webhook_secret_sealed": 3,
        "game.webhook_previous_secret_sealed": 0,
        "payout_profile.details_sealed": 0,
        "payout_profile_change.details_sealed": 0,
        "payment_file.content_sealed": 0,
      },
      total: 6,
    });
    expect(await allOpenWith(K2)).toBe(true);
    expect(
      (await sealedValues()).some((v) => {
        try {
          openSecret(v.sealed, v.context, K1);
          return true;
        } catch {
          return false;
        }
      }),
    ).toBe(false);
    expect(lines((await addGame({ key: K1 }, "g5")).stderr)).toEqual([`desk games add: ${mismatchLine(K2, K1)}`]);
    expect((await addGame({ key: K2 }, "g5")).code).toBe(0);
    // During the rollout's last step an instance may still carry the old key as the previous one.
    expect((await addGame({ key: K2, previous: K1 }, "g6")).code).toBe(0);
    const audit = await t.db
      .selectFrom("audit_log")
      .select(["target", "detail"])
      .where("action", "=", "keys.rotate")
      .execute();
    expect(audit).toEqual([
      { target: keyId(K2), detail: expect.objectContaining({ via: "cli", previousKeyId: keyId(K1), total: 6 }) },
    ]);
  });
});

/** Backends of this database, other than the asking one, that are running a statement or inside a transaction. */
async function openTransactions(): Promise<number> {
  const client = new pg.Client({ connectionString: t.url });
  await client.connect();
  try {
    const result = await client.query(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
         and state in ('active', 'idle in transaction', 'idle in transaction (aborted)')`,
    );
    return (result.rows[0] as { n: number }).n;
  } finally {
    await client.end();
  }
}

describe("keys rotate in the embedded default", () => {
  it("moves .data/local-secrets.json to the new key once the secrets are re-sealed", async () => {
    const dataDir = path.join(dir, "embedded");
    const embeddedEnv: NodeJS.ProcessEnv = {
      ...process.env,
      PAYOUT_DESK_DATA_DIR: dataDir,
      NODE_OPTIONS: "",
      LOG_LEVEL: "silent",
    };
    for (const name of ["DATABASE_URL", "PAYOUT_DESK_KEY", "PAYOUT_DESK_KEY_PREVIOUS", "PAYOUT_DESK_EMULATOR"])
      delete embeddedEnv[name];
    const embedded = async (...args: string[]): Promise<Result> => {
      try {
        const { stdout, stderr } = await run(process.execPath, ["bin/desk.mjs", ...args], {
          cwd: ROOT,
          env: embeddedEnv,
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const e = error as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
      }
    };
    const add = (...extra: string[]) =>
      embedded(
        "games",
        "add",
        "--id",
        "e1",
        "--name",
        "e1",
        "--env",
        "sandbox",
        "--base-url",
        "http://127.0.0.1:9",
        "--secret",
        "gs_test_e1_secret_1234",
        ...extra,
      );
    expect((await add()).code).toBe(0);
    const secretsFile = path.join(dataDir, "local-secrets.json");
    const before = JSON.parse(await readFile(secretsFile, "utf8")) as { key: string; pgPassword: string };

    // A refused rotation (to the key the secrets are sealed with already) leaves the file as it was.
    const refused = await embedded(
      "keys",
      "rotate",
      "--new-key-file",
      await keyFile(Buffer.from(before.key, "base64")),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("already sealed with key");
    expect(JSON.parse(await readFile(secretsFile, "utf8"))).toEqual(before);

    const rotated = await embedded("keys", "rotate", "--new-key-file", await keyFile(K3));
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(JSON.parse(rotated.stdout)).toMatchObject({
      previousKeyId: keyId(Buffer.from(before.key, "base64")),
      keyId: keyId(K3),
      total: 1,
    });
    expect(JSON.parse(await readFile(secretsFile, "utf8"))).toEqual({ key: b64(K3), pgPassword: before.pgPassword });
    expect((await add("--replace")).code).toBe(0);

    // A secrets file that is not one (the bare key written into it) is refused without quoting any of it.
    const bare = path.join(dir, "bare-key");
    await mkdir(bare, { recursive: true });
    await writeFile(path.join(bare, "local-secrets.json"), `${b64(K3)}\n`, { mode: 0o600 });
    const unreadable = await run(process.execPath, ["bin/desk.mjs", "games", "list"], {
      cwd: ROOT,
      env: { ...embeddedEnv, PAYOUT_DESK_DATA_DIR: bare },
    }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(unreadable.code).not.toBe(0);
    expect(unreadable.stderr).toContain("local-secrets.json cannot be read: it is not JSON");
    expect(unreadable.stderr).not.toContain(b64(K3).slice(0, 6));
  });
});
