import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir, userInfo } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "@/db/migrations";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { type DeskRun, refusalLine, runDesk } from "../support/desk";

let t: TestDatabase;
const KEY = Buffer.alloc(32, 7).toString("base64");

beforeAll(async () => {
  t = await createTestDatabase({ migrate: false });
});
afterAll(async () => t?.drop());

function desk(...args: string[]): Promise<DeskRun> {
  return runDesk(t.url, args, { PAYOUT_DESK_KEY: KEY });
}

describe("npm run desk", () => {
  it("migrates, adds a user and a game, and lists them with secrets masked", async () => {
    expect((await desk("migrate")).code).toBe(0);
    const user = await desk(
      "users",
      "add",
      "--email",
      "Ops@Example.test",
      "--role",
      "finance",
      "--password",
      "a-long-password",
    );
    expect(user.code).toBe(0);
    expect(JSON.parse(user.stdout)).toMatchObject({ email: "ops@example.test", role: "finance" });
    const game = await desk(
      "games",
      "add",
      "--id",
      "g1",
      "--name",
      "Game One",
      "--env",
      "sandbox",
      "--base-url",
      "http://127.0.0.1:4010/",
      "--secret",
      "gs_test_cli_secret_9876",
      "--webhook-secret",
      "whsec_current_1111",
      "--webhook-secret",
      "whsec_previous_2222",
    );
    expect(game.code, game.stderr).toBe(0);
    expect(game.stdout).not.toContain("gs_test_cli_secret_9876");
    const list = await desk("games", "list");
    expect(JSON.parse(list.stdout)).toEqual([
      {
        id: "g1",
        name: "Game One",
        environment: "sandbox",
        baseUrl: "http://127.0.0.1:4010",
        secret: "gs_test_••••9876",
      },
    ]);
    const stored = await t.db.selectFrom("game").selectAll().executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toMatch(/gs_test_cli_secret_9876|whsec_current_1111|whsec_previous_2222/);
    expect(stored.webhook_previous_secret_mask).toBe("whsec_••••2222");
    // Commands that act as no signed-in person still name the system account and machine they ran from.
    const audit = await t.db.selectFrom("audit_log").select(["action", "via", "actor_email", "detail"]).execute();
    const ranBy = `${userInfo().username}@${hostname()}`;
    expect(audit.map((a) => [a.action, a.via, a.actor_email, (a.detail as { ranBy?: string }).ranBy])).toEqual([
      ["user.create", "cli", null, ranBy],
      ["game.create", "cli", null, ranBy],
    ]);
  });

  it("reads a game's secrets from files, kept out of the process list, and refuses a secret given twice", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "desk-secrets-"));
    try {
      await writeFile(path.join(dir, "secret"), "gs_test_from_file_4321\n");
      await writeFile(path.join(dir, "webhook"), "whsec_from_file_5555\r\nignored second line\n");
      const base = ["games", "add", "--id", "g3", "--name", "Game Three", "--env", "sandbox"];
      const args = [...base, "--base-url", "http://127.0.0.1:4010/", "--secret-file", path.join(dir, "secret")];
      const added = await desk(...args, "--webhook-secret-file", path.join(dir, "webhook"));
      expect(added.code, added.stderr).toBe(0);
      expect(JSON.parse(added.stdout)).toMatchObject({ id: "g3", secret: "gs_test_••••4321" });
      const stored = await t.db.selectFrom("game").selectAll().where("id", "=", "g3").executeTakeFirstOrThrow();
      expect(stored.webhook_secret_mask).toBe("whsec_••••5555");
      expect(added.stdout + added.stderr).not.toMatch(/from_file/);
      const addUser = async (email: string, password: string) => {
        const file = path.join(dir, `${email}.pw`);
        await writeFile(file, `${password}\n`);
        return desk("users", "add", "--email", email, "--role", "viewer", "--password-file", file);
      };
      const user = await addUser("file@example.test", "a-long-password-from-file");
      expect(user.code, user.stderr).toBe(0);
      expect(user.stdout + user.stderr).not.toContain("a-long-password-from-file");
      const weak = await addUser("weak@example.test", "short");
      expect(weak.code).toBe(2);
      expect(refusalLine(weak)).toMatch(/--password-file: the first line of \S+weak@example\.test\.pw /);
      const twice = await desk(...args, "--secret", "gs_test_12345678", "--replace");
      expect(twice.code).toBe(2);
      expect(refusalLine(twice)).toContain("--secret: give it, or --secret-file (one of the two)");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  /** `games add` with valid arguments but for those given. */
  const gamesAdd = (changed: Record<string, string>) => {
    const valid = {
      "--id": "g2",
      "--name": "N",
      "--env": "sandbox",
      "--base-url": "http://127.0.0.1",
      "--secret": "gs_test_12345678",
    };
    return ["games", "add", ...Object.entries({ ...valid, ...changed }).flat()];
  };

  it.each([
    [["users", "add", "--email", "nope", "--role", "admin", "--password", "a-long-password"], "--email"],
    [["users", "add", "--email", "a@b.test", "--role", "owner", "--password", "a-long-password"], "--role"],
    [["users", "add", "--email", "a@b.test", "--role", "admin", "--password", "short"], "--password"],
    [["users", "add", "--email", "a@b.test", "--role", "admin"], "--password"],
    [["users", "set-role", "--email", "a@b.test", "--role", "root"], "--role"],
    [gamesAdd({ "--id": "bad id" }), "--id"],
    [gamesAdd({ "--env": "staging" }), "--env"],
    [gamesAdd({ "--env": "production", "--base-url": "http://api.example.test" }), "--base-url"],
    [gamesAdd({ "--base-url": "not a url" }), "--base-url"],
    [gamesAdd({ "--secret": "short" }), "--secret"],
    [["games", "add", "--id", "g2", "--unknown", "x"], "--unknown"],
    [["export", "--kind", "lines", "--out", "x.csv", "--snapshot"], "--snapshot needs a value"],
    [["users", "add", "--email", "--role", "admin"], "--email needs a value"],
  ])("refuses %j naming %s, with a non-zero exit", async (args, flag) => {
    expect(refusalLine(await desk(...args))).toContain(flag);
  });

  it("explains itself with --help on every command and refuses unknown commands", async () => {
    for (const command of [
      ["migrate"],
      ["users", "add"],
      ["users", "list"],
      ["users", "set-role"],
      ["games", "add"],
      ["games", "list"],
    ]) {
      const help = await desk(...command, "--help");
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("Usage: npm run desk --");
    }
    const group = await desk("users", "--help");
    expect(group.code).toBe(0);
    expect(
      group.stdout
        .split("\n")
        .filter((line) => line.startsWith("npm run desk -- users "))
        .map((line) => line.split(" ")[5]),
    ).toEqual(["add", "list", "set-role", "remove-access", "set-password"]);
    const unknown = await desk("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });

  it("applies a migration the earlier release cannot run beside only when told that release is stopped", async () => {
    // As an installation a release behind: the migrations from one that release cannot run beside on (each
    // re-runnable) not applied yet.
    const behind = Object.keys(MIGRATIONS)
      .sort()
      .filter((name) => name >= "2026_12_06_1000_payment_file_downloads");
    await sql`delete from kysely_migration where name = any(${behind})`.execute(t.db);
    const refused = await desk("migrate");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "migration 2026_12_06_1000_payment_file_downloads, 2026_12_07_0900_batch_email_runs, " +
        "2026_12_16_0900_payment_return_undone needs every instance of the earlier release stopped first",
    );
    expect(refused.stderr).toContain("npm run desk -- migrate --earlier-release-stopped");
    const stopped = await desk("migrate", "--earlier-release-stopped");
    expect(stopped.code).toBe(0);
    expect(JSON.parse(stopped.stdout)).toEqual({ migrated: true, applied: behind });
  });
});
