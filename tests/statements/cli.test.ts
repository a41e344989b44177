import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/auth/users";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { runDesk } from "../support/desk";
import { statementFixture } from "./fixture";

let t: TestDatabase;
let out: string;
let batchId: string;
const FINANCE = "finance@statements-cli.test";
const ADMIN = "admin@statements-cli.test";
const PASSWORD = { PAYOUT_DESK_ACTOR_PASSWORD: "a-long-password" };

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  ({ marchBatch: batchId } = await statementFixture(t.db, "stmt-cli"));
  for (const [email, role] of [
    [FINANCE, "finance"],
    [ADMIN, "admin"],
  ] as const)
    await createUser(t.db, { email, role, password: "a-long-password" }, { actor: null, via: "cli" });
  out = await mkdtemp(path.join(tmpdir(), "statements-"));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
  await t?.drop();
});

/** A `statements` command that succeeds. */
async function desk(...args: string[]) {
  const result = await runDesk(t.url, ["statements", ...args], PASSWORD);
  expect(result.code).toBe(0);
  return result;
}

/** `statements send` of the batch refused with `code` and `message`, printing nothing on stdout. */
async function refused(args: string[], code: number, message: string) {
  const result = await runDesk(t.url, ["statements", "send", "--batch", batchId, ...args], PASSWORD);
  expect(result).toMatchObject({ code, stdout: "" });
  expect(result.stderr).toContain(message);
}

describe("npm run desk -- statements render", () => {
  it("writes a PDF and a CSV per statement, named by number, and prints only the JSON summary", async () => {
    const { code, stdout, stderr } = await runDesk(
      t.url,
      ["statements", "render", "--batch", batchId, "--out", out, "--actor", FINANCE],
      PASSWORD,
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      batchId,
      gameId: "stmt-cli",
      statements: 4,
      firstNumber: "PD-stmt-cli-000001",
      lastNumber: "PD-stmt-cli-000004",
    });
    expect(stderr).toContain("statement PD-stmt-cli-000004");
    const files = (await readdir(out)).sort();
    expect(files).toEqual([1, 2, 3, 4].flatMap((n) => [`PD-stmt-cli-00000${n}.csv`, `PD-stmt-cli-00000${n}.pdf`]));
    const pdf = await readFile(path.join(out, "PD-stmt-cli-000001.pdf"));
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    // A recipient's name, email and earnings: readable by their writer only, as every export is.
    for (const file of files) expect((await stat(path.join(out, file))).mode & 0o777).toBe(0o600);
  });

  // Each step runs the command line (a process of its own: up to half a minute on a busy machine): the steps of a story
  // are tests of their own, in order, so that each stays well inside a test's time.
  it("sets who issues statements, and queues one recipient's email once, a retry refused", async () => {
    const settings = await desk("settings", "--studio-name", "Kraków Games", "--link-days", "14", "--actor", ADMIN);
    expect(JSON.parse(settings.stdout)).toEqual({ studioName: "Kraków Games", studioAddress: "", linkDays: 14 });
    const sent = await desk("send", "--batch", batchId, "--recipient", "901", "--actor", FINANCE);
    expect(JSON.parse(sent.stdout)).toEqual({
      batchId,
      gameId: "stmt-cli",
      queued: 1,
      skippedNoEmail: [],
      emailRuns: 1,
    });
    const log = await t.db.selectFrom("statement_delivery").select(["status", "to_address"]).execute();
    expect(log).toEqual([{ status: "queued", to_address: "anna@example.test" }]);
    // The same command run again (a script's retry) emails her no second time; again only against her emails' count.
    const twice = await runDesk(
      t.url,
      ["statements", "send", "--batch", batchId, "--recipient", "901", "--actor", FINANCE],
      PASSWORD,
    );
    expect(twice).toMatchObject({ code: 1, stdout: "" });
    expect(twice.stderr).toContain("email was queued 1 time (failed ones included), not never");
    expect(twice.stderr).toContain("--again --sends-seen 1");
    expect(await t.db.selectFrom("statement_delivery").select("id").execute()).toHaveLength(1);
  });

  it("queues the rest of the batch, then every one again only against the count of runs seen", async () => {
    // The batch: the three statements never emailed; with --again, all four.
    const rest = await desk("send", "--batch", batchId, "--actor", FINANCE);
    expect(JSON.parse(rest.stdout)).toMatchObject({ queued: 3, skippedNoEmail: [], emailRuns: 2 });
    // Every one again only against the count of sends it was decided on, which `payouts show` prints.
    await refused(["--again", "--actor", FINANCE], 2, "--runs-seen: is needed with --again");
    await refused(["--runs-seen", "2", "--actor", FINANCE], 2, "--runs-seen: is given only with --again");
    await refused(["--again", "--runs-seen", "1", "--actor", FINANCE], 1, "queued since the count given");
  });

  it("emails every one again with the count `payouts show` prints, once, each queueing audited", async () => {
    const shown = await runDesk(t.url, ["payouts", "show", "--batch", batchId], PASSWORD);
    expect(JSON.parse(shown.stdout)).toMatchObject({ emailRuns: 2 });
    const again = await desk("send", "--batch", batchId, "--again", "--runs-seen", "2", "--actor", FINANCE);
    expect(JSON.parse(again.stdout)).toMatchObject({ queued: 4, emailRuns: 3 });
    // The same command run twice (a script's retry) emails no one a third time.
    await refused(["--again", "--runs-seen", "2", "--actor", FINANCE], 1, "queued since the count given");
    expect(await t.db.selectFrom("statement_delivery").select("id").execute()).toHaveLength(8);
    // Each queueing is audited as the person who asked for it.
    const audit = await t.db
      .selectFrom("audit_log")
      .select(["action", "actor_email", "via"])
      .where("action", "=", "statements.send")
      .execute();
    expect(audit).toEqual(Array(3).fill({ action: "statements.send", actor_email: FINANCE, via: "cli" }));
  });

  it("refuses an --out naming a file, before asking for a password or reading the database", async () => {
    const file = path.join(out, "a-file");
    await writeFile(file, "kept");
    // Nothing listens on this address: a refusal that reached the database would be a connection error (exit 1).
    const nowhere = "postgres://desk:desk@127.0.0.1:9/none";
    for (const target of [file, path.join(file, "statements")]) {
      const refused = await runDesk(
        nowhere,
        ["statements", "render", "--batch", batchId, "--out", target, "--actor", FINANCE],
        {},
      );
      expect(refused).toMatchObject({ code: 2, stdout: "" });
      expect(refused.stderr).toContain(`--out: ${file} is a file`);
    }
    expect(await readFile(file, "utf8")).toBe("kept");
  });

  it("refuses a batch that does not exist with one line and a non-zero exit", async () => {
    const failed = await runDesk(
      t.url,
      ["statements", "render", "--batch", "00000000-0000-4000-8000-000000000000", "--out", out, "--actor", FINANCE],
      PASSWORD,
    );
    expect(failed.code).not.toBe(0);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toContain("--batch: no payout batch 00000000-0000-4000-8000-000000000000");
  });
});
