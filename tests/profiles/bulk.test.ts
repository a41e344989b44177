import { createHash } from "node:crypto";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { exportProfiles, importProfiles } from "@/lib/profiles/bulk";
import { openPayoutDetails } from "@/lib/profiles/details";
import type { ProfileActing } from "@/lib/profiles/profiles";
import type { TestDatabase } from "../support/db";
import { createProfilesDatabase } from "./support";

/**
 * CSV import of payout profiles: a dry run lists every change and every refused row with its reason and changes
 * nothing; applying is all or nothing, in one transaction. The export carries masked details only.
 */

const GAME = "bulk-game";
let t: TestDatabase;
let db: Db;
const fin: ProfileActing = { actor: { id: "b-fin-1", email: "bfin1@payout-desk.test" }, role: "finance", via: "cli" };

const HEADER = [
  "player_id,method,currency,paypal_email,paypal_payer_id,wise_email,wise_name,account_holder,iban,bic,bank_country",
  "tax_form,tax_form_received_on,tax_form_expires_on",
].join(",");
const GOOD = [
  "9001,bank_transfer,EUR,,,,,Grace Hopper,DE89 3704 0044 0532 0130 00,COBADEFFXXX,DE,W-8BEN,2026-01-10,2028-12-31",
  "9002,paypal,usd,pp9002@example.com,,,,,,,,,,",
  '9003,wise,GBP,,,wise9003@example.com,"Turing, Alan",,,,,,,',
  "9004,manual,USD,,,,,,,,,none,,",
];
const BAD = [
  "9005,bank_transfer,EUR,,,,,Bad Checksum,DE89370400440532013001,COBADEFFXXX,DE,,,",
  "9006,,,someone@example.com,,,,,,,,,,",
  "9001,manual,USD,,,,,,,,,,,",
  "abc,manual,USD,,,,,,,,,,,",
];
const csv = (rows: string[]) => [HEADER, ...rows].join("\r\n");

async function countRows(): Promise<number> {
  const profiles = await db.selectFrom("payout_profile").select("player_id").execute();
  const changes = await db.selectFrom("payout_profile_change").select("id").execute();
  return profiles.length + changes.length;
}

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  db = t.db;
});
afterAll(async () => t?.drop());

describe("profiles import", () => {
  it("a dry run lists every change and every refused row with its reason, and changes nothing", async () => {
    const result = await importProfiles(db, { gameId: GAME, csv: csv([...GOOD, ...BAD]), dryRun: true }, fin);
    expect(result).toMatchObject({ dryRun: true, applied: false, rows: 8 });
    expect(result.changes.map((c) => [c.line, c.playerId, c.kind, c.effect, c.summary])).toEqual([
      [2, 9001, "details", "applied", "IBAN ••••3000, BIC ••••FXXX (EUR)"],
      [2, 9001, "tax_form", "applied", "W-8BEN, received 2026-01-10, expires 2028-12-31"],
      [3, 9002, "details", "applied", "PayPal p•••@example.com (USD)"],
      [4, 9003, "details", "applied", "Wise w•••@example.com (GBP)"],
      [5, 9004, "details", "applied", "Manual, paid outside any file (USD)"],
      [5, 9004, "tax_form", "unchanged", "none"],
    ]);
    expect(result.refused).toEqual([
      { line: 6, playerId: 9005, reason: "iban: is not a valid IBAN (its check digits or length are wrong)" },
      { line: 7, playerId: 9006, reason: "payout details without a method: fill in the method column" },
      { line: 8, playerId: 9001, reason: "the same player_id is on an earlier line" },
      { line: 9, playerId: null, reason: "player_id: must be a player id (digits only)" },
    ]);
    expect(await countRows()).toBe(0);
    expect(JSON.stringify(result)).not.toContain("DE89");
  });

  it("applying with a refused row changes nothing; without, every row applies in one go", async () => {
    const refused = await importProfiles(db, { gameId: GAME, csv: csv([...GOOD, BAD[0] ?? ""]), dryRun: false }, fin);
    expect(refused).toMatchObject({ applied: false, refused: [{ line: 6 }] });
    expect(await countRows()).toBe(0);

    const applied = await importProfiles(db, { gameId: GAME, csv: csv(GOOD), dryRun: false }, fin);
    expect(applied).toMatchObject({ applied: true, refused: [] });
    const details = await openPayoutDetails(db, GAME, [9001, 9002, 9003, 9004]);
    expect(details.get(9001)).toMatchObject({
      method: "bank_transfer",
      currency: "EUR",
      details: { iban: "DE89370400440532013000", accountHolder: "Grace Hopper" },
    });
    expect(details.get(9003)?.details).toMatchObject({ wiseName: "Turing, Alan" });

    // The same file again changes nothing; a new IBAN waits for review and the old one stays in force.
    const again = await importProfiles(db, { gameId: GAME, csv: csv(GOOD), dryRun: false }, fin);
    expect(again.changes.every((c) => c.effect === "unchanged")).toBe(true);
    const changed = await importProfiles(
      db,
      {
        gameId: GAME,
        csv: csv(["9001,bank_transfer,EUR,,,,,Grace Hopper,GB82WEST12345698765432,NWBKGB2LXXX,GB,,,"]),
        dryRun: false,
      },
      fin,
    );
    expect(changed.changes).toEqual([
      {
        line: 2,
        playerId: 9001,
        kind: "details",
        effect: "pending",
        summary: "IBAN ••••5432, BIC ••••LXXX (EUR)",
        previous: "IBAN ••••3000, BIC ••••FXXX (EUR)",
        displaced: null,
      },
    ]);
    expect((await openPayoutDetails(db, GAME, [9001])).get(9001)?.details).toMatchObject({
      iban: "DE89370400440532013000",
    });
    // A colleague's file repeats the details in force: it would withdraw the change waiting, and says whose.
    const colleague: ProfileActing = { ...fin, actor: { id: "b-fin-2", email: "bfin2@payout-desk.test" } };
    const inForce = "9001,bank_transfer,EUR,,,,,Grace Hopper,DE89370400440532013000,COBADEFFXXX,DE,,,";
    const repeated = await importProfiles(db, { gameId: GAME, csv: csv([inForce]), dryRun: true }, colleague);
    expect(repeated.changes.map((c) => [c.effect, c.displaced])).toEqual([
      ["unchanged", "IBAN ••••5432, BIC ••••LXXX, entered by bfin1@payout-desk.test"],
    ]);
  });

  it("a W-8 form needs its expiry; a blank expiry for the same form leaves the one on file", async () => {
    // 9001's W-8BEN, expiring 2028-12-31, was imported above: corrected received date, expiry left blank.
    const corrected = await importProfiles(
      db,
      { gameId: GAME, csv: csv(["9001,,,,,,,,,,,W-8BEN,2026-01-12,"]), dryRun: false },
      fin,
    );
    expect(corrected).toMatchObject({ applied: true, refused: [] });
    const kept = await db
      .selectFrom("payout_profile")
      .select((eb) => eb.fn<string>("to_char", [eb.ref("tax_form_expires_on"), eb.val("YYYY-MM-DD")]).as("expires"))
      .where("player_id", "=", "9001")
      .executeTakeFirstOrThrow();
    expect(kept.expires).toBe("2028-12-31");
    // A W-8 form where none with an expiry is on file: refused, saying what to give.
    const none = await importProfiles(
      db,
      { gameId: GAME, csv: csv(["9002,,,,,,,,,,,W-8BEN-E,2026-02-01,"]), dryRun: true },
      fin,
    );
    expect(none.refused).toEqual([
      expect.objectContaining({ line: 2, reason: expect.stringMatching(/must be given for a W-8 form/) }),
    ]);
  });

  it("refuses a file with unknown columns before reading any row", async () => {
    await expect(
      importProfiles(db, { gameId: GAME, csv: "player_id,iban_full\n1,x", dryRun: true }, fin),
    ).rejects.toThrow(/Unknown columns: iban_full/);
  });

  it("refuses a row with a cell too many, a stray quote or a column named twice, quoting no cell", async () => {
    const header = "player_id,method,currency,account_holder";
    const refusal = (text: string) =>
      importProfiles(db, { gameId: GAME, csv: text, dryRun: true }, fin).then(
        () => "taken",
        (error: Error) => error.message,
      );
    // An unquoted comma in a name would move "Ada" into a column of its own.
    expect(await refusal(`${header}\n9001,bank_transfer,EUR,Lovelace, Ada\n`)).toBe(
      "The file cannot be read as CSV: record inconsistent fields length on line 2.",
    );
    expect(await refusal(`${header}\n9001,bank_transfer,EUR, "Lovelace, Ada"\n`)).toBe(
      "The file cannot be read as CSV: invalid opening quote on line 2.",
    );
    expect(await refusal("player_id,method,method\n9001,paypal,wise\n")).toBe("Columns named twice: method.");
    // The same comma in a row whose trailing cells were left off moves " Ada" into a column a Wise row does not read:
    // refused, not dropped with the name cut short; so are another method's details.
    const full = `${HEADER}\n9001,wise,GBP,,,ada@example.com,Lovelace, Ada\n9002,paypal,USD,pp@example.com,,,,,DE89\n`;
    const shifted = await importProfiles(db, { gameId: GAME, csv: full, dryRun: true }, fin);
    expect(shifted.changes).toEqual([]);
    expect(shifted.refused).toEqual([
      expect.objectContaining({ line: 2, playerId: 9001, reason: expect.stringMatching(/^account_holder: not read/) }),
      expect.objectContaining({ line: 3, playerId: 9002, reason: expect.stringMatching(/^iban: not read for paypal/) }),
    ]);
    expect(JSON.stringify(shifted)).not.toMatch(/Ada|DE89/);
    // Blank lines and a cell over two lines: a refusal names the line the row ends on in the file.
    const spaced = await importProfiles(
      db,
      { gameId: GAME, csv: `${header}\n\n\n9001,bank_transfer,EUR,"Ada\nLovelace"\nx,paypal,USD,\n`, dryRun: true },
      fin,
    );
    expect(spaced.refused.map((r) => [r.line, r.playerId])).toEqual([
      [5, 9001],
      [6, null],
    ]);
  });

  it("refuses a file saved without its header, repeating nothing of its first row", async () => {
    const headless = "9001,bank_transfer,EUR,Kim Doe,DE89370400440532013000,COBADEFFXXX,DE\n";
    const refusal = await importProfiles(db, { gameId: GAME, csv: headless, dryRun: true }, fin).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(refusal).toBe(
      "The first row must be the header naming the columns, player_id among them: it has no player_id column.",
    );
    // A header that names player_id and a cell that looks like a value: the cell is named by its position.
    await expect(
      importProfiles(db, { gameId: GAME, csv: "player_id,DE89370400440532013000\n1,x", dryRun: true }, fin),
    ).rejects.toThrow(/^Unknown columns: column 2\. /);
  });
});

describe("profiles export", () => {
  it("writes masked details only, with the documented columns", async () => {
    const { csv: text, rows } = await exportProfiles(db, { gameId: GAME }, fin);
    expect(rows).toBe(4);
    // Audited as every export is: who, how many rows, the file's SHA-256.
    const audit = await db
      .selectFrom("audit_log")
      .select(["actor_email", "via", "outcome", "detail"])
      .where("action", "=", "export.profiles")
      .execute();
    expect(audit).toEqual([
      {
        actor_email: fin.actor?.email,
        via: "cli",
        outcome: "completed",
        detail: {
          rows: 4,
          bytes: Buffer.byteLength(text),
          sha256: createHash("sha256").update(text).digest("hex"),
        },
      },
    ]);
    // UTF-8 with a byte-order mark, for a spreadsheet to show the masks' "•" as written.
    expect(text.startsWith("\uFEFFplayer_id,")).toBe(true);
    const records = parse(text, { columns: true, bom: true }) as Record<string, string>[];
    expect(Object.keys(records[0] ?? {})).toEqual([
      "player_id",
      "method",
      "currency",
      "details_masked",
      "tax_form",
      "tax_form_received_on",
      "tax_form_expires_on",
      "pending_change_masked",
      "updated_at",
    ]);
    expect(records.find((r) => r.player_id === "9001")).toMatchObject({
      method: "bank_transfer",
      currency: "EUR",
      details_masked: "IBAN ••••3000, BIC ••••FXXX",
      tax_form: "W-8BEN",
      // As corrected by the import above.
      tax_form_received_on: "2026-01-12",
      pending_change_masked: "IBAN ••••5432, BIC ••••LXXX",
    });
    for (const plain of ["DE89370400440532013000", "GB82WEST12345698765432", "COBADEFF", "pp9002@", "Grace Hopper"]) {
      expect(text).not.toContain(plain);
    }
  });

  it("is audited as failed, not completed, when its file could not be written", async () => {
    const full = new Error("ENOSPC: no space left on device, write");
    await expect(
      exportProfiles(db, { gameId: GAME }, fin, async () => {
        throw full;
      }),
    ).rejects.toBe(full);
    const last = await db
      .selectFrom("audit_log")
      .select(["outcome", "detail"])
      .where("action", "=", "export.profiles")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(last).toMatchObject({ outcome: "failed", detail: { rows: 4, error: full.message } });
  });
});
