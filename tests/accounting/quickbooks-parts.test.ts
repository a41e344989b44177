import { parse } from "csv-parse/sync";
import Decimal from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mapAccount } from "@/lib/accounting/accounts";
import { setQuickbooksDateOrder } from "@/lib/accounting/date-order";
import { startExport } from "@/lib/exports/run";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { gameWithBatch } from "../exports/fixture";

/**
 * QuickBooks Online's importer takes at most 1,000 rows a file, its header among them: a batch whose entries take more
 * is split into parts of whole entries, each a file of its own. Read with csv-parse as the importer would: lines with
 * the same Journal No are one entry, and its debits equal its credits.
 */

const GAME = "qb-parts";
const STATEMENTS = 300;
let t: TestDatabase;
let batchId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  const statements = Array.from({ length: STATEMENTS }, (_, i) => ({
    recipientId: 5000 + i,
    name: `Recipient ${i}`,
    email: null,
    gross: `${10 + (i % 40)}.25`,
    reversed: "0.00",
    state: "paid" as const,
  }));
  ({ batchId } = await gameWithBatch(t.db, { gameId: GAME, status: "paid", statements }));
  const names = { expense: "Creator payouts", payable: "Creators payable", clearing: "Payouts clearing" } as const;
  for (const account of ["expense", "payable", "clearing"] as const)
    await mapAccount(t.db, { gameId: GAME, account, code: names[account], taxRate: null }, { actor: null, via: "cli" });
});
afterAll(async () => {
  await t?.drop();
});

async function download(part: number, split?: string) {
  const started = await startExport(t.db, {
    kind: "journal-quickbooks",
    batchId,
    part,
    split,
    bom: false,
    actor: null,
    via: "cli",
  });
  const chunks: Buffer[] = [];
  for await (const chunk of started.chunks) chunks.push(chunk);
  const rows = parse(Buffer.concat(chunks).toString("utf8")) as string[][];
  return { rows, parts: started.target.parts, split: started.target.split };
}

describe("QuickBooks Online journal entries in parts", () => {
  it("[accounting] splits a batch of more than 1,000 rows into files of whole, balanced entries", async () => {
    const first = await download(1);
    expect(first.parts).toBe(2);
    expect(first.split).toMatch(/^[0-9a-f]{16}$/);
    const files = [first, await download(2, first.split as string)];
    const seen = new Map<string, number>();
    let lines = 0;
    for (const [index, file] of files.entries()) {
      const [header, ...rows] = file.rows;
      expect(header).toEqual(["Journal No", "Journal Date", "Account", "Debits", "Credits", "Description", "Name"]);
      expect(file.rows.length).toBeLessThanOrEqual(1_000);
      lines += rows.length;
      const sums = new Map<string, { debits: Decimal; credits: Decimal }>();
      for (const row of rows) {
        const number = row[0] as string;
        const sum = sums.get(number) ?? { debits: new Decimal(0), credits: new Decimal(0) };
        sum.debits = sum.debits.plus(row[3] || "0");
        sum.credits = sum.credits.plus(row[4] || "0");
        sums.set(number, sum);
      }
      for (const [number, sum] of sums) {
        // An entry lies in one file only, and balances there.
        expect(seen.has(number), `${number} in part ${seen.get(number)} and part ${index + 1}`).toBe(false);
        seen.set(number, index + 1);
        expect(sum.debits.equals(sum.credits), number).toBe(true);
        expect(sum.debits.isPositive() && !sum.debits.isZero()).toBe(true);
      }
    }
    // Each paid statement: its accrual and its payment, two lines each.
    expect(seen.size).toBe(STATEMENTS * 2);
    expect(lines).toBe(STATEMENTS * 4);
    expect(files[0]?.rows.length).toBe(1 + 998);
  });

  it("[accounting] refuses a part of a listing made before the date order or an account changed", async () => {
    const listed = (await download(1)).split as string;
    // Day first since part 1: part 2 would read 04/03 as another day than part 1 does in the same company.
    await setQuickbooksDateOrder(t.db, { gameId: GAME, order: "dmy" }, { actor: null, via: "cli" });
    await expect(download(2, listed)).rejects.toMatchObject({ code: "CONFLICT", field: "split" });
    const dayFirst = (await download(1)).split as string;
    expect(dayFirst).not.toBe(listed);
    expect((await download(2, dayFirst)).rows.length).toBeGreaterThan(1);
    // An account mapped to another name since part 1: the batch would be posted to two accounts.
    const cli = { actor: null, via: "cli" } as const;
    await mapAccount(t.db, { gameId: GAME, account: "payable", code: "Payable (creators)", taxRate: null }, cli);
    await expect(download(2, dayFirst)).rejects.toMatchObject({
      code: "CONFLICT",
      field: "split",
      message: expect.stringMatching(/or the accounts or date order they are written with changed/),
    });
    const remapped = await download(1);
    expect(remapped.split).not.toBe(dayFirst);
    const payable = remapped.rows.slice(1).filter((row) => row[2] === "Payable (creators)");
    expect(payable.length).toBeGreaterThan(0);
  });

  it("[accounting] refuses a byte-order mark on a file made for an import, and audits nothing", async () => {
    const before = await t.db.selectFrom("audit_log").select("id").execute();
    for (const kind of ["journal-quickbooks", "journal-xero"] as const) {
      const ask = startExport(t.db, { kind, batchId, part: 1, bom: true, actor: null, via: "cli" });
      await expect(ask).rejects.toMatchObject({
        code: "INVALID_INPUT",
        field: "bom",
        message: expect.stringMatching(
          /^bom: a byte-order mark is for files opened in a spreadsheet; the .* import as/,
        ),
      });
    }
    expect(await t.db.selectFrom("audit_log").select("id").execute()).toHaveLength(before.length);
    // The journal a person reads in a spreadsheet takes one.
    const journal = await startExport(t.db, { kind: "journal", batchId, bom: true, actor: null, via: "cli" });
    const first = await journal.chunks.next();
    expect((first.value as Buffer).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    await journal.chunks.return(undefined);
  });
});
