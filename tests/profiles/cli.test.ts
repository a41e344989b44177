import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { type DeskRun, runDesk } from "../support/desk";

/** `desk profiles import|export`: the JSON result alone on stdout, the two-person rule by --actor. */
const KEY = Buffer.alloc(32, 9).toString("base64");
const IBAN = "DE89370400440532013000";
let t: TestDatabase;
let dir: string;

function desk(...args: string[]): Promise<DeskRun> {
  return runDesk(t.url, args, {
    PAYOUT_DESK_KEY: KEY,
    LOG_LEVEL: "silent",
    PAYOUT_DESK_ACTOR_PASSWORD: "a-long-password",
  });
}

beforeAll(async () => {
  t = await createTestDatabase({ migrate: false });
  dir = await mkdtemp(path.join(tmpdir(), "profiles-cli-"));
  expect((await desk("migrate")).code).toBe(0);
  for (const [email, role] of [
    ["fin@cli.test", "finance"],
    ["viewer@cli.test", "viewer"],
  ] as const)
    expect((await desk("users", "add", "--email", email, "--role", role, "--password", "a-long-password")).code).toBe(
      0,
    );
  const game = await desk(
    "games",
    "add",
    "--id",
    "g1",
    "--name",
    "Game",
    "--env",
    "sandbox",
    "--base-url",
    "https://api.example.test",
    "--secret",
    "gs_test_cli_profiles",
  );
  expect(game.code).toBe(0);
});
afterAll(async () => {
  await t?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `desk profiles import` of a file into game g1, as the user given. */
const importAs = (file: string, actor: string, ...more: string[]) =>
  desk("profiles", "import", "--game", "g1", "--file", file, "--actor", actor, ...more);

describe("desk profiles", () => {
  it("imports (dry run, then for real) as a finance user and exports masked details", async () => {
    const file = path.join(dir, "in.csv");
    await writeFile(
      file,
      [
        "player_id,method,currency,account_holder,iban,bic,bank_country",
        `42,bank_transfer,EUR,Kim Doe,${IBAN},COBADEFFXXX,DE`,
      ].join("\n"),
    );
    const refused = await importAs(file, "viewer@cli.test");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/viewer@cli.test is viewer; finance or admin acts here/);

    const dry = await importAs(file, "fin@cli.test", "--dry-run");
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      dryRun: true,
      applied: false,
      changes: [{ playerId: 42, effect: "applied", summary: "IBAN ••••3000, BIC ••••FXXX (EUR)" }],
      refused: [],
    });
    const applied = await importAs(file, "fin@cli.test");
    expect(JSON.parse(applied.stdout)).toMatchObject({ dryRun: false, applied: true });

    // A folder as --out is refused before anything is exported or audited.
    const exportsAudited = async () =>
      (await t.db.selectFrom("audit_log").select("id").where("action", "like", "%export%").execute()).length;
    const auditedBefore = await exportsAudited();
    const intoFolder = await desk("profiles", "export", "--game", "g1", "--out", dir);
    expect(intoFolder.code).toBe(2);
    expect(intoFolder.stderr).toContain("is a folder; name the file to write");
    expect(await exportsAudited()).toBe(auditedBefore);

    const out = path.join(dir, "out.csv");
    const exported = await desk("profiles", "export", "--game", "g1", "--out", out);
    expect(await exportsAudited()).toBe(auditedBefore + 1);
    expect(JSON.parse(exported.stdout)).toEqual({ exported: 1, file: out, masked: true });
    const text = await readFile(out, "utf8");
    expect(text).not.toContain(IBAN);
    expect(text.startsWith("\uFEFF")).toBe(true);
    expect(parse(text, { columns: true, bom: true })).toMatchObject([
      { player_id: "42", method: "bank_transfer", details_masked: "IBAN ••••3000, BIC ••••FXXX" },
    ]);
    for (const r of [dry, applied, exported]) expect(r.stdout + r.stderr).not.toContain(IBAN);
  });

  it("a refused row changes nothing and fails the command, with the summary still on stdout", async () => {
    const file = path.join(dir, "bad.csv");
    await writeFile(file, ["player_id,method,currency,paypal_email", "43,paypal,USD,not-an-email"].join("\n"));
    const refused = await importAs(file, "fin@cli.test");
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ dryRun: false, applied: false, refused: [expect.anything()] });
    expect(refused.stderr).toMatch(/1 row refused; nothing was changed/);
    // A dry run of it fails too, so `import --dry-run && import` stops there.
    const dry = await importAs(file, "fin@cli.test", "--dry-run");
    expect(dry.code).toBe(1);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, refused: [expect.anything()] });
    expect(dry.stderr).toMatch(/1 row refused; the file would not be imported/);
  });

  it("a file that cannot be read is refused before the actor signs in", async () => {
    const signIns = async () =>
      (
        await t.db
          .selectFrom("audit_log")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .where("action", "=", "user.sign_in")
          .executeTakeFirstOrThrow()
      ).n;
    const before = await signIns();
    const missing = await importAs(path.join(dir, "missing.csv"), "fin@cli.test");
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toContain("missing.csv");
    expect(await signIns()).toBe(before);
  });
});
