import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/auth/users";
import type { TestDatabase } from "../support/db";
import { createProfilesDatabase } from "../profiles/support";
import { GAME } from "../payouts/fixtures";
import { approvedBatch, IBAN, seedProfiles } from "./support";
import { type DeskRun, runDesk } from "../support/desk";
import { setIssuer } from "../statements/support";

/** `desk payouts pay-file | import-results`: JSON alone on stdout, bank details only in the payment file. */
let t: TestDatabase;
let dir: string;
let batchId: string;
/** The file is asked to be paid today (UTC): once come, it is the day its payments are recorded paid. */
const executionDay = new Date().toISOString().slice(0, 10);

function desk(...args: string[]): Promise<DeskRun> {
  return deskAt(t.url, ...args);
}

function deskAt(databaseUrl: string, ...args: string[]): Promise<DeskRun> {
  return runDesk(databaseUrl, args, { LOG_LEVEL: "debug", PAYOUT_DESK_ACTOR_PASSWORD: "a-long-password" });
}

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  await createUser(
    t.db,
    { email: "fin@cli.test", role: "finance", password: "a-long-password" },
    { actor: null, via: "cli" },
  );
  await seedProfiles(t.db);
  batchId = await approvedBatch(t.db, "2026-09", { 1: "100.00", 2: "80.00" });
  dir = await mkdtemp(path.join(tmpdir(), "payments-cli-"));
});

afterAll(async () => {
  await t?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("desk payouts pay-file / import-results", () => {
  it("writes a SEPA file, imports its results after a dry run, and never prints bank details", async () => {
    const out = path.join(dir, "sepa.xml");
    const common = ["--batch", batchId, "--actor", "fin@cli.test"];
    const missingRate = await desk("payouts", "pay-file", ...common, "--method", "sepa", "--out", out);
    expect(missingRate.code).not.toBe(0);
    expect(missingRate.stderr).toMatch(/rate/);
    // A folder that does not exist, written with its separator, is refused before anything moves (the file made
    // below still finds its statement approved).
    const noFolder = await desk(
      ...["payouts", "pay-file", ...common, "--method", "paypal", "--out", `${path.join(dir, "missing")}/`],
    );
    expect(noFolder.code).toBe(2);
    expect(noFolder.stderr).toMatch(/--out: the folder .*missing does not exist/);
    // A file already there, readable by anyone: the payment file replaces it readable by its owner alone.
    await writeFile(out, "old", { mode: 0o644 });

    const made = await desk(
      "payouts",
      "pay-file",
      ...common,
      "--method",
      "sepa",
      "--out",
      out,
      "--eur-rate",
      "0.92",
      "--rate-source",
      "ECB reference rate",
      "--execution-date",
      executionDay,
    );
    expect(made.code, made.stderr).toBe(0);
    const summary = JSON.parse(made.stdout);
    expect(summary).toMatchObject({ inPayment: 1, files: [expect.objectContaining({ rowCount: 1, currency: "EUR" })] });
    const xml = await readFile(out, "utf8");
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    expect(xml).toContain(IBAN);
    for (const text of [made.stdout, made.stderr, missingRate.stdout, missingRate.stderr])
      expect(text).not.toContain(IBAN);

    const reference = /<EndToEndId>([^<]+)<\/EndToEndId>/.exec(xml)?.[1] ?? "";
    const results = path.join(dir, "results.csv");
    await writeFile(
      results,
      "reference,provider_transaction_id,outcome,amount,currency,fee,reason\r\n" +
        `${reference},BANK-1,paid,73.60,EUR,0,\r\n` +
        `NOPE-202609-AAAAAAAAAAAA,BANK-2,paid,1.00,EUR,0,\r\n`,
    );
    const args = ["payouts", "import-results", ...common, "--format", "generic", "--file", results];
    // A line no statement of the batch matches needs a person: said on stderr, exit 1, a dry run too.
    const dry = await desk(...args, "--dry-run");
    expect(dry.code, dry.stderr).toBe(1);
    expect(dry.stderr).toContain('needs a person: 1 line not applied (listed in "lines" with what to do)');
    // What it is doing, as it goes, on stderr.
    expect(dry.stderr).toContain("desk payouts import-results: previewing generic results");
    expect(dry.stderr).toContain("desk payouts import-results: 2 lines read; a preview: nothing applied");
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, counts: { pay: 1, unknown_reference: 1 } });
    const real = await desk(...args);
    expect(real.code).toBe(1);
    expect(real.stderr).toContain("needs a person: 1 line not applied");
    expect(real.stderr).toContain("2 lines read; applied: 1 paid, 0 rejected, 0 returned, 0 pending");
    expect(real.stderr).toContain("Set the studio's name in Settings → Statements first");
    expect(JSON.parse(real.stdout)).toMatchObject({
      dryRun: false,
      applied: { paid: 1 },
      // The payment stands; the result says why its statement was not emailed (nobody named the issuer yet).
      statementEmails: 0,
      emailsNotQueued: expect.stringContaining("Set the studio's name in Settings → Statements first"),
    });
    // No date given: the file's requested execution date, which has come, is the day the money left.
    const paid = await t.db
      .selectFrom("payout_statement")
      .select(sql<string>`to_char(paid_on, 'YYYY-MM-DD')`.as("day"))
      .where("batch_id", "=", batchId)
      .where("state", "=", "paid")
      .execute();
    expect(paid.map((r) => r.day)).toEqual([executionDay]);
    const again = await desk(...args);
    // Importing again applies nothing and still queues what is owed: an import stopped before queuing its emails
    // (here: refused for want of an issuer) is made good by running it again.
    expect(JSON.parse(again.stdout)).toMatchObject({
      applied: { paid: 0 },
      counts: { already_applied: 1 },
      emailsNotQueued: expect.stringContaining("Set the studio's name in Settings → Statements first"),
    });
    expect(again.code).toBe(1);
    // With the issuer named and only lines that apply (here: applied already), the import is clean: exit 0.
    await setIssuer(t.db);
    await writeFile(
      results,
      "reference,provider_transaction_id,outcome,amount,currency,fee,reason\r\n" +
        `${reference},BANK-1,paid,73.60,EUR,0,\r\n`,
    );
    const clean = await desk(...args);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stderr).not.toContain("needs a person");
    expect(JSON.parse(clean.stdout)).toMatchObject({ counts: { already_applied: 1 }, emailsNotQueued: null });
    for (const text of [dry.stdout, dry.stderr, real.stdout, real.stderr]) expect(text).not.toContain(IBAN);
  });

  it("refuses bad flags and an unwritable destination before connecting or moving any statement", async () => {
    // Nothing listens on this address: a refusal that reached the database would be a connection error (exit 1).
    const nowhere = "postgres://desk:desk@127.0.0.1:9/none";
    const common = ["--actor", "fin@cli.test", "--out", path.join(dir, "x.csv")];
    const badMethod = await deskAt(
      nowhere,
      "payouts",
      "pay-file",
      "--batch",
      batchId,
      "--method",
      "bitcoin",
      ...common,
    );
    expect(badMethod).toMatchObject({ code: 2, stdout: "" });
    expect(badMethod.stderr).toMatch(/--method: /);
    const badBatch = await deskAt(nowhere, "payouts", "pay-file", "--batch", "nope", "--method", "paypal", ...common);
    expect(badBatch).toMatchObject({ code: 2, stdout: "" });
    expect(badBatch.stderr).toMatch(/--batch: /);
    const results = path.join(dir, "r.csv");
    await writeFile(results, "reference,outcome\r\n");
    const importAt = (...flags: string[]) =>
      deskAt(
        nowhere,
        "payouts",
        "import-results",
        "--batch",
        batchId,
        "--file",
        results,
        "--actor",
        "fin@cli.test",
        ...flags,
      );
    const badFormat = await importAt("--format", "mt940");
    expect(badFormat).toMatchObject({ code: 2, stdout: "" });
    expect(badFormat.stderr).toMatch(/--format: /);
    const future = await importAt("--format", "generic", "--paid-on", "2999-01-01");
    expect(future).toMatchObject({ code: 2, stdout: "" });
    expect(future.stderr).toMatch(/--paid-on: cannot be in the future/);
    // Given with nothing (an unset shell variable): refused, not taken for "not given".
    const empty = await importAt("--format", "generic", "--paid-on=");
    expect(empty).toMatchObject({ code: 2, stdout: "" });
    expect(empty.stderr).toContain("--paid-on: is empty: give a value or leave the flag out");
    // So is a variable holding a space: not taken for "not given" (each file's own day) either.
    const blank = await importAt("--format", "generic", "--paid-on", " ");
    expect(blank).toMatchObject({ code: 2, stdout: "" });
    expect(blank.stderr).toContain("--paid-on: is empty: give a value or leave the flag out");
    const missingFile = path.join(dir, "missing.csv");
    const unreadable = await deskAt(
      nowhere,
      "payouts",
      "import-results",
      "--batch",
      batchId,
      "--format",
      "generic",
      "--file",
      missingFile,
      "--actor",
      "fin@cli.test",
    );
    expect(unreadable).toMatchObject({ code: 2, stdout: "" });
    expect(unreadable.stderr).toMatch(/--file: cannot read .*missing\.csv \(ENOENT\)/);

    // A database that cannot be reached is named (never its password) with what to check.
    const unreachable = await deskAt("postgres://desk:s3cret-pw@127.0.0.1:9/none", "users", "list");
    expect(unreachable).toMatchObject({ code: 1, stdout: "" });
    expect(unreachable.stderr).toMatch(/cannot reach the database at 127\.0\.0\.1:9\/none \(ECONNREFUSED\): check/);
    expect(unreachable.stderr).not.toContain("s3cret-pw");

    const before = await t.db.selectFrom("payment_file").select("id").execute();
    const missing = path.join(dir, "no-such-folder", "paypal.csv");
    const refused = await desk(
      "payouts",
      "pay-file",
      "--batch",
      batchId,
      "--method",
      "paypal",
      "--actor",
      "fin@cli.test",
      "--out",
      missing,
    );
    expect(refused).toMatchObject({ code: 2, stdout: "" });
    expect(refused.stderr).toMatch(/--out: the folder .*no-such-folder does not exist/);
    expect(await t.db.selectFrom("payment_file").select("id").execute()).toEqual(before);
  });

  it("writes several files into the folder of an --out naming a file, not failing once statements moved", async () => {
    const october = await approvedBatch(t.db, "2026-10", { 1: "40.00", 2: "30.00" });
    const out = path.join(dir, "generic.csv");
    await writeFile(out, "an earlier file\r\n");
    const made = await desk(
      ...["payouts", "pay-file", "--batch", october, "--method", "generic", "--out", out],
      ...["--eur-rate", "0.92", "--rate-source", "ECB", "--actor", "fin@cli.test"],
    );
    expect(made.code, made.stderr).toBe(0);
    const summary = JSON.parse(made.stdout) as { files: { path: string; currency: string }[] };
    expect(summary.files.map((f) => f.currency).sort()).toEqual(["EUR", "USD"]);
    expect(made.stderr).toContain(`2 files, written into ${dir} under their own names`);
    for (const file of summary.files) {
      expect(path.dirname(file.path)).toBe(dir);
      expect((await stat(file.path)).mode & 0o777).toBe(0o600);
    }
    // The file --out named is left as it was, and no temporary file is left beside them.
    expect(await readFile(out, "utf8")).toBe("an earlier file\r\n");
    expect((await readdir(dir)).filter((f) => f.endsWith(".partial"))).toEqual([]);
  });
});
