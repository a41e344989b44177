import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Decimal from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mapAccount, readAccountMap } from "@/lib/accounting/accounts";
import { isAppError } from "@/lib/errors";
import { journalsOfPart, PartsInTurn, splitJournals } from "@/lib/exports/journal-files";
import { startExport } from "@/lib/exports/run";
import type { ExportKind } from "@/lib/exports/types";
import { readCsv } from "../support/csv";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { runDesk } from "../support/desk";
import { addGame, insertBatch, insertSnapshot, type StatementInput } from "../exports/fixture";

/**
 * The ledger import files, read back the way the ledgers read them: a small reader written here from Xero's and
 * Intuit's import rules (csv-parse only splits the cells), never the writer's own code.
 */

const GAME = "acct-a";
const CODES = { expense: "6100", payable: "2150", clearing: "1090" } as const;
const TAX = { expense: "No GST", payable: "BAS Excluded", clearing: "BAS Excluded" } as const;
let t: TestDatabase;
let batchId: string;
let statements: StatementInput[];
const CLI = { actor: null, via: "cli" } as const;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, GAME);
  const snapshotId = await insertSnapshot(t.db, {
    gameId: GAME,
    start: "2026-03-01T00:00:00Z",
    end: "2026-04-01T00:00:00Z",
    recipients: [],
    lines: [],
  });
  // Enough recipients for several files of 300 lines: an accrual, a payment and for every third a reversal each.
  statements = Array.from({ length: 160 }, (_, i) => ({
    recipientId: 1000 + i,
    name: i === 5 ? "=cmd|' /C calc'!A0" : i === 7 ? "Bob;=HYPERLINK(1)" : `Recipient ${i}`,
    email: `r${i}@example.test`,
    gross: `${20 + i}.25`,
    reversed: i % 3 === 0 ? "1.10" : "0.00",
    state: "paid" as const,
  }));
  ({ batchId } = await insertBatch(t.db, { gameId: GAME, snapshotId, status: "paid", statements }));
});
afterAll(async () => {
  await t?.drop();
});

async function download(
  kind: ExportKind,
  part?: number,
  split?: string,
): Promise<{ text: string; parts: number; split: string | null }> {
  const started = await startExport(t.db, { kind, batchId, part, split, bom: false, actor: null, via: "cli" });
  const chunks: Buffer[] = [];
  for await (const chunk of started.chunks) chunks.push(chunk);
  return { text: Buffer.concat(chunks).toString("utf8"), parts: started.target.parts, split: started.target.split };
}

async function refusal(kind: ExportKind): Promise<string> {
  try {
    await startExport(t.db, { kind, batchId, bom: false, actor: null, via: "cli" });
  } catch (error) {
    if (isAppError(error)) return error.message;
    throw error;
  }
  throw new Error(`${kind} was not refused`);
}

const XERO_DATE = /^(\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4})$/;
const US_DATE = /^(\d{2})\/(\d{2})\/(\d{4})$/;
const AMOUNT = /^-?\d+\.\d{2}$/;

/** Xero: rows with the same Narration and Date are one journal; Amount positive = debit, negative = credit. */
function xeroJournals(rows: Record<string, string>[]): Map<string, Record<string, string>[]> {
  const journals = new Map<string, Record<string, string>[]>();
  for (const row of rows) {
    const key = `${row["*Narration"]}|${row["*Date"]}`;
    journals.set(key, [...(journals.get(key) ?? []), row]);
  }
  return journals;
}

describe("ledger files refuse unmapped accounts", () => {
  it("names the accounts to map and where, for both formats", async () => {
    for (const kind of ["journal-xero", "journal-quickbooks"] as const) {
      const message = await refusal(kind);
      expect(message).toContain("expense");
      expect(message).toContain("payable");
      expect(message).toContain("clearing");
      expect(message).toContain("/settings/accounting");
    }
  });

  it("Xero also needs a tax rate name on each account it posts to; QuickBooks does not", async () => {
    for (const account of ["expense", "payable", "clearing"] as const)
      await mapAccount(t.db, { gameId: GAME, account, code: CODES[account], taxRate: null }, CLI);
    const message = await refusal("journal-xero");
    expect(message).toMatch(/tax rate name for expense, payable, clearing/);
    await expect(download("journal-quickbooks")).resolves.toBeDefined();
    for (const account of ["expense", "payable", "clearing"] as const)
      await mapAccount(t.db, { gameId: GAME, account, code: CODES[account], taxRate: TAX[account] }, CLI);
  });

  it("refuses a code or tax rate mapped before such names were refused, naming the account to map again", async () => {
    const stored = t.db
      .updateTable("accounting_account_map")
      .where("game_id", "=", GAME)
      .where("account", "=", "payable");
    await stored.set({ code: "-2150" }).execute();
    for (const kind of ["journal-xero", "journal-quickbooks"] as const)
      expect(await refusal(kind)).toMatch(/map again payable \(code must not start with =, \+, -, @ or '/);
    await stored.set({ code: CODES.payable, tax_rate: "'Tax Exempt" }).execute();
    expect(await refusal("journal-xero")).toMatch(/map again payable \(tax rate name must not start with/);
    await mapAccount(t.db, { gameId: GAME, account: "payable", code: CODES.payable, taxRate: TAX.payable }, CLI);
    await expect(download("journal-xero")).resolves.toBeDefined();
  });

  it("refuses a mapping saved from a page drawn before another admin's save, keeping theirs", async () => {
    const shown: { code: string; taxRate: string } = { code: CODES.expense, taxRate: TAX.expense };
    const save = (taxRate: string, drawn = shown) =>
      mapAccount(t.db, { gameId: GAME, account: "expense", code: CODES.expense, taxRate, drawn }, CLI);
    await save("GST Free");
    // The other page still shows the tax rate before that change, and saves its code with it.
    await expect(save(TAX.expense)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(
        /mapped again since this page was opened \(now 6100, GST Free\).*Nothing was saved/,
      ),
    });
    expect((await readAccountMap(t.db, { gameId: GAME })).expense?.taxRate).toBe("GST Free");
    await save(TAX.expense, { code: CODES.expense, taxRate: "GST Free" });
    expect((await readAccountMap(t.db, { gameId: GAME })).expense?.taxRate).toBe(TAX.expense);
  });
});

describe("Xero manual journals", () => {
  let parts: Record<string, string>[][];

  beforeAll(async () => {
    const first = await download("journal-xero", 1);
    parts = [readCsv(first.text)];
    const split = first.split ?? undefined;
    for (let part = 2; part <= first.parts; part++)
      parts.push(readCsv((await download("journal-xero", part, split)).text));
  });

  it("splits into files of at most 300 lines with the header, each journal whole in one file", () => {
    expect(parts.length).toBeGreaterThan(2);
    const seen = new Map<string, number>();
    parts.forEach((rows, index) => {
      expect(rows.length + 1).toBeLessThanOrEqual(300);
      expect(rows.length).toBeGreaterThan(0);
      for (const key of xeroJournals(rows).keys()) {
        expect(seen.has(key), `journal ${key} appears in two files`).toBe(false);
        seen.set(key, index);
      }
    });
    // Every ledger posting made it: accrual and payment per recipient, and the reversals.
    const reversals = statements.filter((s) => s.reversed !== "0.00").length;
    expect(seen.size).toBe(statements.length * 2 + reversals);
  });

  it("balances every journal, posts to the mapped codes with their tax rates, dates dd mmm yyyy", () => {
    for (const rows of parts) {
      for (const [key, lines] of xeroJournals(rows)) {
        const total = lines.reduce((sum, line) => {
          expect(line["*Amount"]).toMatch(AMOUNT);
          return sum.plus(line["*Amount"] as string);
        }, new Decimal(0));
        expect(total.isZero(), `journal ${key} balances`).toBe(true);
        for (const line of lines) {
          const match = XERO_DATE.exec(line["*Date"] as string);
          expect(match, line["*Date"]).not.toBeNull();
          const [, day, , year] = match as RegExpExecArray;
          expect(Number(day)).toBeGreaterThanOrEqual(1);
          expect(Number(day)).toBeLessThanOrEqual(31);
          expect(year).toBe("2026");
          const account = (Object.keys(CODES) as (keyof typeof CODES)[]).find((a) => CODES[a] === line["*AccountCode"]);
          expect(account, `code ${line["*AccountCode"]} is a mapped one`).toBeDefined();
          expect(line["*TaxRate"]).toBe(TAX[account as keyof typeof TAX]);
          // A formula after a semicolon gets one apostrophe, as in every file the desk writes.
          if (line.Description?.startsWith("Bob;")) expect(line.Description).toBe("Bob;'=HYPERLINK(1) (player 1007)");
          expect(line.TrackingName1).toBe("Game");
          expect(line.TrackingOption1).toBe(GAME);
        }
      }
    }
    expect(parts.flat().filter((line) => line.Description?.startsWith("Bob;")).length).toBeGreaterThan(0);
  });

  it("posts what was earned, reversed and paid: expense, payable and clearing balances", () => {
    const balance = (code: string) =>
      parts
        .flat()
        .reduce(
          (sum, line) => (line["*AccountCode"] === code ? sum.plus(line["*Amount"] as string) : sum),
          new Decimal(0),
        );
    const gross = statements.reduce((s, x) => s.plus(x.gross), new Decimal(0));
    const reversed = statements.reduce((s, x) => s.plus(x.reversed), new Decimal(0));
    const paid = gross.minus(reversed);
    expect(balance(CODES.expense).toFixed(2)).toBe(gross.minus(reversed).toFixed(2));
    expect(balance(CODES.clearing).toFixed(2)).toBe(paid.negated().toFixed(2));
    expect(balance(CODES.payable).toFixed(2)).toBe("0.00");
    // Payments are dated by the recorded payment date (2026-04-03), accruals by the approval (2026-04-02).
    expect(new Set(parts.flat().map((line) => line["*Date"]))).toEqual(new Set(["02 Apr 2026", "03 Apr 2026"]));
  });

  it("refuses a part that does not exist", async () => {
    await expect(download("journal-xero", parts.length + 1)).rejects.toThrow(/has \d+ parts/);
  });
});

describe("desk export --kind journal-xero", () => {
  it("writes every part: the first under the name given, the others beside it, one JSON summary", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-xero-"));
    try {
      const out = path.join(dir, "xero.csv");
      // An earlier export under the same name left more parts than this one has: none is left to import again.
      for (let part = 2; part <= 60; part++) await writeFile(path.join(dir, `xero.part-${part}.csv`), "earlier\r\n");
      const result = await runDesk(t.url, ["export", "--batch", batchId, "--kind", "journal-xero", "--out", out]);
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout) as {
        file: string;
        parts: { file: string; part: number; rows: number }[];
        removedParts: string[];
      };
      expect(summary.parts.length).toBeGreaterThan(2);
      // Every part of the earlier set goes once the first part replaces its first: those this export writes again
      // too, so that a run cut short leaves none of them beside its own.
      const earlier = Array.from({ length: 59 }, (_, i) => `xero.part-${2 + i}.csv`);
      expect(summary.removedParts.map((f) => path.basename(f))).toEqual(earlier);
      expect(result.stderr).toContain(`removed ${path.join(dir, "xero.part-60.csv")}, a part of an earlier export`);
      expect(summary.parts.map((p) => path.basename(p.file))).toEqual(
        summary.parts.map((p) => (p.part === 1 ? "xero.csv" : `xero.part-${p.part}.csv`)),
      );
      expect((await readdir(dir)).sort()).toEqual(summary.parts.map((p) => path.basename(p.file)).sort());
      for (const part of summary.parts) {
        const rows = readCsv(await readFile(part.file, "utf8"));
        expect(rows.length).toBe(part.rows);
        expect(rows.length + 1).toBeLessThanOrEqual(300);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("QuickBooks Online journal entries", () => {
  it("groups by Journal No, balances each entry, uses the mapped accounts and MM/DD/YYYY", async () => {
    const rows = readCsv((await download("journal-quickbooks")).text);
    expect(Object.keys(rows[0] ?? {})).toEqual([
      "Journal No",
      "Journal Date",
      "Account",
      "Debits",
      "Credits",
      "Description",
      "Name",
    ]);
    const entries = new Map<string, Record<string, string>[]>();
    for (const row of rows)
      entries.set(row["Journal No"] as string, [...(entries.get(row["Journal No"] as string) ?? []), row]);
    expect(entries.size).toBe(statements.length * 2 + statements.filter((s) => s.reversed !== "0.00").length);
    for (const [number, lines] of entries) {
      expect(number.length).toBeLessThanOrEqual(21);
      let debits = new Decimal(0);
      let credits = new Decimal(0);
      for (const line of lines) {
        // One of the two amounts per line, the other empty.
        expect((line.Debits === "") !== (line.Credits === ""), `${number}: one side per line`).toBe(true);
        if (line.Debits) debits = debits.plus(line.Debits);
        if (line.Credits) credits = credits.plus(line.Credits);
        expect(Object.values(CODES)).toContain(line.Account);
        const date = US_DATE.exec(line["Journal Date"] as string);
        expect(date).not.toBeNull();
        expect(Number(date?.[1])).toBeLessThanOrEqual(12);
        expect(line["Journal Date"]).toBe(lines[0]?.["Journal Date"]);
        // The recipient is named on the payable lines only.
        expect(line.Name !== "").toBe(line.Account === CODES.payable);
      }
      expect(debits.equals(credits), `${number} balances`).toBe(true);
    }
    // A recipient name that looks like a formula comes after the player id: inert, and imported without an apostrophe;
    // no name holds a colon, which QuickBooks reads as "parent:sub-customer".
    expect(rows.some((r) => /^Player \d+ - =cmd/.test(r.Name ?? ""))).toBe(true);
    expect(rows.filter((r) => r.Name?.includes(":"))).toEqual([]);
    // A formula after a semicolon gets one apostrophe, as in every file the desk writes.
    const semicolon = rows.flatMap((r) => (r.Name?.startsWith("Bob;") ? [r.Name] : []));
    expect(semicolon.length).toBeGreaterThan(0);
    expect(new Set(semicolon)).toEqual(new Set(["Bob;'=HYPERLINK(1) (player 1007)"]));
    expect(rows.filter((r) => /^[=+\-@'\t\r]/.test(r.Name ?? "") || /^[=+\-@'\t\r]/.test(r.Description ?? ""))).toEqual(
      [],
    );
  });

  it("writes dates day first for a company that reads them so, once set for the game (audited)", async () => {
    const monthFirst = readCsv((await download("journal-quickbooks")).text);
    const set = await runDesk(t.url, ["accounts", "quickbooks-dates", "--game", GAME, "--order", "dmy"]);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ game: GAME, order: "dmy", changed: true });
    try {
      const dayFirst = readCsv((await download("journal-quickbooks")).text);
      expect(dayFirst.length).toBe(monthFirst.length);
      expect(dayFirst.some((row) => row["Journal Date"] !== monthFirst[0]?.["Journal Date"])).toBe(true);
      dayFirst.forEach((row, i) => {
        const [month, day, year] = (monthFirst[i]?.["Journal Date"] ?? "").split("/");
        expect(row["Journal Date"]).toBe(`${day}/${month}/${year}`);
      });
      const line = await t.db
        .selectFrom("audit_log")
        .select(["outcome", "detail"])
        .where("action", "=", "accounting.quickbooks_date_order")
        .executeTakeFirstOrThrow();
      const ranBy = `${os.userInfo().username}@${os.hostname()}`;
      expect(line).toEqual({ outcome: "succeeded", detail: { from: "mdy", to: "dmy", ranBy } });
    } finally {
      await runDesk(t.url, ["accounts", "quickbooks-dates", "--game", GAME, "--order", "mdy"]);
    }
  });
});

describe("splitting at whole journals", () => {
  it("never cuts a journal: journals of 7 lines fill parts of 294", async () => {
    async function* journals() {
      for (let i = 0; i < 100; i++) yield { id: i, lines: 7 };
    }
    const parts: number[][] = [];
    for (let part = 1; part <= 3; part++) {
      const ids: number[] = [];
      for await (const j of journalsOfPart(journals(), (x) => x.lines, 300, part)) ids.push(j.id);
      parts.push(ids);
    }
    expect(parts.map((p) => p.length * 7)).toEqual([294, 294, 112]);
    expect(parts.flat()).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it("splits the same when the parts are read in turn from one pass (desk export) as each alone", async () => {
    // Journals of 1 to 9 lines (the ledger's are 2 to 4) into parts of at most 12: many boundaries, some exact fits.
    const sizes = Array.from({ length: 200 }, (_, i) => 1 + ((i * 7 + (i >> 3)) % 9));
    let read = 0;
    async function* journals() {
      for (const [id, lines] of sizes.entries()) {
        read++;
        yield { id, lines };
      }
    }
    const { parts } = await splitJournals(
      journals(),
      (x) => x.lines,
      (x) => String(x.id),
      12,
      "",
    );
    const alone: number[][] = [];
    for (let part = 1; part <= parts; part++) {
      const ids: number[] = [];
      for await (const j of journalsOfPart(journals(), (x) => x.lines, 12, part)) ids.push(j.id);
      alone.push(ids);
    }
    read = 0;
    const inTurn = new PartsInTurn(journals(), (x) => x.lines, 12);
    const together: number[][] = [];
    for (let part = 1; part <= parts; part++) {
      const ids: number[] = [];
      for await (const j of inTurn.part(part)) ids.push(j.id);
      together.push(ids);
    }
    expect(parts).toBeGreaterThan(50);
    expect(together).toEqual(alone);
    expect(read).toBe(sizes.length);
    // A part asked for out of turn is a mistake of the caller's, not a file with journals missing.
    await expect(inTurn.part(parts + 2).next()).rejects.toThrow(/part \d+ asked for where part \d+ comes next/);
  });
});
