import { hostname, userInfo } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeAppSetting } from "@/db/queries/statements";
import { createUser } from "@/lib/auth/users";
import {
  DEFAULT_STATEMENT_SETTINGS,
  readSavedStatementSettings,
  STATEMENT_SETTINGS_KEY,
  saveStatementSettings,
  statementIssuerIsSet,
  statementSettingsDrawn,
} from "@/lib/statements/settings";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { refusalLine, runDesk } from "../support/desk";

/**
 * Statements are emailed only once the studio has said who issues them. Saving another setting must not save the
 * placeholder issuer as if it were the studio's name, from the command line or the page.
 */
let t: TestDatabase;
const ADMIN = "admin@issuer.test";
const FINANCE = "finance@issuer.test";
const PASSWORD = { PAYOUT_DESK_ACTOR_PASSWORD: "a-long-password" };
const CLI = { actor: null, via: "cli" } as const;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await createUser(t.db, { email: ADMIN, role: "admin", password: "a-long-password" }, CLI);
  await createUser(t.db, { email: FINANCE, role: "finance", password: "a-long-password" }, CLI);
});
afterAll(async () => t?.drop());

function settings(...args: string[]) {
  return runDesk(t.url, ["statements", "settings", ...args], PASSWORD);
}

describe("who issues the statements", () => {
  it("is not set by saving the link days alone, nor by saving the placeholder as the name", async () => {
    const linkDaysOnly = await settings("--link-days", "14", "--actor", ADMIN);
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
    // Changed by an admin, who gives their password; finance may not.
    const byFinance = await settings("--studio-name", "Northwind Games", "--actor", FINANCE);
    expect(refusalLine(byFinance)).toContain(`--actor: ${FINANCE} is finance; an admin changes the statement settings`);
    expect(refusalLine(await settings("--studio-name", "Northwind Games"))).toContain("--actor: is required");
    const named = await settings("--studio-name", "Northwind Games", "--actor", ADMIN);
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ studioName: "Northwind Games", linkDays: 30 });
    expect(await statementIssuerIsSet(t.db)).toBe(true);

    const days = await settings("--link-days", "14", "--actor", ADMIN);
    expect(days.code, days.stderr).toBe(0);
    const lines = await t.db
      .selectFrom("audit_log")
      .select(["detail", "actor_email"])
      .where("action", "=", "settings.statements")
      .orderBy("id")
      .execute();
    expect(lines.map((l) => l.actor_email)).toEqual([ADMIN, ADMIN]);
    // Written through the command line: each also names the system account and machine it ran from.
    const ranBy = `${userInfo().username}@${hostname()}`;
    expect(lines.map((l) => l.detail)).toEqual([
      { from: null, to: { studioName: "Northwind Games", studioAddress: "", linkDays: 30 }, ranBy },
      {
        from: { studioName: "Northwind Games", studioAddress: "", linkDays: 30 },
        to: { studioName: "Northwind Games", studioAddress: "", linkDays: 14 },
        ranBy,
      },
    ]);
  });

  it("sends one recipient's statement again only against the count of its emails, never the batch's", async () => {
    const batch = "0b6f2c1e-9d1a-4a8e-8f55-2f0c1c7d4e10";
    const refusal = async (...flags: string[]) =>
      refusalLine(
        await runDesk(t.url, ["statements", "send", "--batch", batch, ...flags, "--actor", FINANCE], PASSWORD),
      );
    expect(await refusal("--recipient", "12", "--again")).toContain(
      "--sends-seen: is needed with --recipient and --again",
    );
    expect(await refusal("--recipient", "12", "--again", "--runs-seen", "1", "--sends-seen", "1")).toContain(
      "--runs-seen: is for the whole batch",
    );
    expect(await refusal("--recipient", "12", "--sends-seen", "1")).toContain(
      "--sends-seen: is given only with --again",
    );
    expect(await refusal("--again", "--runs-seen", "1", "--sends-seen", "1")).toContain(
      "--sends-seen: is for one statement",
    );
  });

  it("refuses a save from a page opened before another admin's, which would undo their change", async () => {
    const shown = statementSettingsDrawn(await readSavedStatementSettings(t.db));
    const admin = { actor: { id: "a2", email: ADMIN }, via: "web" } as const;
    await saveStatementSettings(
      t.db,
      { studioName: "Northwind Games Ltd", studioAddress: "1 Harbour Road", linkDays: 14, drawn: shown },
      admin,
    );
    // The first page, still open, changes only the link days: refused, the name and address kept.
    await expect(
      saveStatementSettings(
        t.db,
        { studioName: "Northwind Games", studioAddress: "", linkDays: 60, drawn: shown },
        admin,
      ),
    ).rejects.toThrow(/changed the statement settings after this page was opened .*nothing was saved/);
    // From the command line, what to do there.
    await expect(
      saveStatementSettings(
        t.db,
        { studioName: "Northwind Games", studioAddress: "", linkDays: 60, drawn: shown },
        { actor: admin.actor, via: "cli" },
      ),
    ).rejects.toThrow(/after they were read .*nothing was saved\. Run the command again\.$/);
    expect(await readSavedStatementSettings(t.db)).toEqual({
      studioName: "Northwind Games Ltd",
      studioAddress: "1 Harbour Road",
      linkDays: 14,
    });
  });
});
