import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeAppSetting } from "@/db/queries/statements";
import {
  DEFAULT_STATEMENT_SETTINGS,
  STATEMENT_SETTINGS_KEY,
  saveStatementSettings,
  statementIssuerIsSet,
} from "@/lib/statements/settings";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { refusalLine, runDesk } from "../support/desk";

/**
 * Statements are emailed only once the studio has said who issues them. Saving another setting must not save the
 * placeholder issuer as if it were the studio's name, from the command line or the page.
 */
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});
afterAll(async () => t?.drop());

const CLI = { actor: null, via: "cli" } as const;

describe("who issues the statements", () => {
  it("is not set by saving the link days alone, nor by saving the placeholder as the name", async () => {
    const linkDaysOnly = await runDesk(t.url, ["statements", "settings", "--link-days", "14"]);
    expect(linkDaysOnly.code).toBe(2);
    expect(refusalLine(linkDaysOnly)).toContain("--studio-name: is required until the studio");
    expect(await statementIssuerIsSet(t.db)).toBe(false);

    await expect(saveStatementSettings(t.db, DEFAULT_STATEMENT_SETTINGS, CLI)).rejects.toThrow(
      "must name the studio that issues the statements",
    );
    // A placeholder saved before it was refused still counts as no issuer.
    await writeAppSetting(t.db, { key: STATEMENT_SETTINGS_KEY, value: DEFAULT_STATEMENT_SETTINGS, by: "cli" });
    expect(await statementIssuerIsSet(t.db)).toBe(false);
  });

  it("is set with the studio's name; the audit line says what the settings were before", async () => {
    const named = await runDesk(t.url, ["statements", "settings", "--studio-name", "Northwind Games"]);
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ studioName: "Northwind Games", linkDays: 30 });
    expect(await statementIssuerIsSet(t.db)).toBe(true);

    const days = await runDesk(t.url, ["statements", "settings", "--link-days", "14"]);
    expect(days.code, days.stderr).toBe(0);
    const lines = await t.db
      .selectFrom("audit_log")
      .select("detail")
      .where("action", "=", "settings.statements")
      .orderBy("id")
      .execute();
    expect(lines.map((l) => l.detail)).toEqual([
      { from: null, to: { studioName: "Northwind Games", studioAddress: "", linkDays: 30 } },
      {
        from: { studioName: "Northwind Games", studioAddress: "", linkDays: 30 },
        to: { studioName: "Northwind Games", studioAddress: "", linkDays: 14 },
      },
    ]);
  });

  it("sends one recipient's statement or all again, not both", async () => {
    const batch = "0b6f2c1e-9d1a-4a8e-8f55-2f0c1c7d4e10";
    const both = await runDesk(t.url, ["statements", "send", "--batch", batch, "--recipient", "12", "--again"]);
    expect(both.code).toBe(2);
    expect(refusalLine(both)).toContain("--again: cannot be given with --recipient");
  });
});
