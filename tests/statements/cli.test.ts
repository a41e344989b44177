import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
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

  it("sets who issues statements, and queues one recipient's email, then the rest, then all again", async () => {
    const desk = async (...args: string[]) => {
      const result = await runDesk(t.url, ["statements", ...args], PASSWORD);
      expect(result.code).toBe(0);
      return result;
    };
    const settings = await desk("settings", "--studio-name", "Kraków Games", "--link-days", "14", "--actor", ADMIN);
    expect(JSON.parse(settings.stdout)).toEqual({ studioName: "Kraków Games", studioAddress: "", linkDays: 14 });
    const sent = await desk("send", "--batch", batchId, "--recipient", "901", "--actor", FINANCE);
    expect(JSON.parse(sent.stdout)).toEqual({ batchId, gameId: "stmt-cli", queued: 1, skippedNoEmail: [] });
    const log = await t.db.selectFrom("statement_delivery").select(["status", "to_address"]).execute();
    expect(log).toEqual([{ status: "queued", to_address: "anna@example.test" }]);
    // The batch: the three statements never emailed; with --again, all four.
    const rest = await desk("send", "--batch", batchId, "--actor", FINANCE);
    expect(JSON.parse(rest.stdout)).toMatchObject({ queued: 3, skippedNoEmail: [] });
    const again = await desk("send", "--batch", batchId, "--again", "--actor", FINANCE);
    expect(JSON.parse(again.stdout)).toMatchObject({ queued: 4 });
    // Each queueing is audited as the person who asked for it.
    const audit = await t.db
      .selectFrom("audit_log")
      .select(["action", "actor_email", "via"])
      .where("action", "=", "statements.send")
      .execute();
    expect(audit).toEqual(Array(3).fill({ action: "statements.send", actor_email: FINANCE, via: "cli" }));
  });

  it("refuses a batch that does not exist with one line and a non-zero exit", async () => {
    const failed = await runDesk(
      t.url,
      ["statements", "render", "--batch", "00000000-0000-4000-8000-000000000000", "--out", out, "--actor", FINANCE],
      PASSWORD,
    );
    expect(failed.code).not.toBe(0);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toContain("No such payout batch");
  });
});
