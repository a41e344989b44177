import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mapAccount } from "@/lib/accounting/accounts";
import { isAppError } from "@/lib/errors";
import { writeExportParts } from "@/lib/exports/file";
import { exportResponse, parseExportQuery } from "@/lib/exports/http";
import { startExport } from "@/lib/exports/run";
import { returnPayment } from "@/lib/payments/returns";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { gameWithBatch } from "../exports/fixture";

/**
 * Xero's parts are split from the batch's postings in ledger order (recipient by recipient), so a posting recorded
 * between two downloads moves the journals after it. A part asked for under the listing it was chosen from is refused
 * once the split changed, instead of repeating or skipping a journal. Files are read with csv-parse and the journal
 * number taken from the Narration the way a reader of the file would.
 */

const GAME = "split-a";
let t: TestDatabase;
let batchId: string;
let statementIds: string[];
const CLI = { actor: null, via: "cli" } as const;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  const statements = Array.from({ length: 120 }, (_, i) => ({
    recipientId: 2000 + i,
    name: `Recipient ${i}`,
    email: `r${i}@example.test`,
    gross: `${30 + i}.50`,
    reversed: "0.00",
    state: "paid" as const,
  }));
  ({ batchId, statementIds } = await gameWithBatch(t.db, { gameId: GAME, status: "paid", statements }));
  const codes = { expense: "6100", payable: "2150", clearing: "1090", returns: "1095" } as const;
  for (const account of ["expense", "payable", "clearing", "returns"] as const)
    await mapAccount(t.db, { gameId: GAME, account, code: codes[account], taxRate: "BAS Excluded" }, CLI);
});
afterAll(async () => {
  await t?.drop();
});

type Part = { split: string | null; parts: number; journals: string[] };

/** One part as a download: its split and the journal numbers in it, read from the Narration cells. */
async function download(part: number, split?: string): Promise<Part> {
  const started = await startExport(t.db, {
    kind: "journal-xero",
    batchId,
    part,
    split,
    bom: false,
    actor: null,
    via: "web",
  });
  const chunks: Buffer[] = [];
  for await (const chunk of started.chunks) chunks.push(chunk);
  return {
    split: started.target.split,
    parts: started.target.parts,
    journals: journalNumbers(Buffer.concat(chunks).toString("utf8")),
  };
}

/** The journal numbers of a Xero file, in file order, read from its Narration cells. */
function journalNumbers(text: string): string[] {
  const [header, ...rows] = parse(text) as string[][];
  const narration = (header ?? []).indexOf("*Narration");
  const journals: string[] = [];
  for (const row of rows) {
    const number = /journal (\S+)$/.exec(row[narration] ?? "")?.[1];
    if (!number) throw new Error(`no journal number in ${row[narration]}`);
    if (journals.at(-1) !== number) journals.push(number);
  }
  return journals;
}

async function refusal(part: number, split: string): Promise<{ code: string; field?: string; message: string }> {
  try {
    await download(part, split);
  } catch (error) {
    if (isAppError(error)) return { code: error.code, field: error.field, message: error.message };
    throw error;
  }
  throw new Error(`part ${part} under split ${split} was not refused`);
}

describe("Xero parts under a listing", () => {
  it("refuses a part of a listing the batch has since outgrown, and serves the new listing whole", async () => {
    const first = await download(1);
    expect(first.parts).toBeGreaterThanOrEqual(2);
    expect(first.split).toMatch(/^[0-9a-f]{16}$/);
    const listed = first.split as string;
    const before: string[][] = [first.journals];
    for (let part = 2; part <= first.parts; part++) before.push((await download(part, listed)).journals);
    // The same listing asked again is the same split.
    expect((await download(1)).split).toBe(listed);
    // A download of a part names its place and the split to ask for the others under.
    const response = await exportResponse(t.db, { kind: "journal-xero", batchId, part: 1, bom: false, ...CLI });
    await response.body?.cancel();
    expect(Object.fromEntries([...response.headers].filter(([name]) => name.startsWith("x-export-p")))).toEqual({
      "x-export-part": "1",
      "x-export-parts": String(first.parts),
    });
    expect(response.headers.get("x-export-split")).toBe(listed);

    // A payment of the third recipient comes back: a returned-payment journal lands early in part 1.
    await returnPayment(
      t.db,
      { gameId: GAME, statementId: statementIds[2] as string, reason: "Bank returned it: account closed" },
      { actor: { id: "u9", email: "second@payout-desk.test" }, via: "web" },
    );

    // A later part asked for without the split its first part was downloaded with is refused whatever the split.
    await expect(download(2)).rejects.toMatchObject({ code: "INVALID_INPUT", field: "split" });
    const refused = await refusal(2, listed);
    expect(refused).toMatchObject({ code: "CONFLICT", field: "split" });
    expect(refused.message).toMatch(/changed after their parts were listed/);
    expect(refused.message).toMatch(/Reload the window page and download every part again/);

    const now = await download(1);
    expect(now.split).not.toBe(listed);
    const after: string[][] = [now.journals];
    for (let part = 2; part <= now.parts; part++) after.push((await download(part, now.split as string)).journals);
    // What the refusal prevents: part 1 of the old listing with part 2 of the new one repeats a journal.
    const mixed = [...(before[0] ?? []), ...(after[1] ?? [])];
    expect(new Set(mixed).size).toBeLessThan(mixed.length);
    // The new listing has every journal of the old one and the return, each exactly once: the payment that came back
    // keeps its journal number, so a ledger that took it before the return is not given it again.
    const all = after.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.filter((j) => !before.flat().includes(j))).toEqual([expect.stringMatching(/^RP-/)]);
    expect(before.flat().every((j) => all.includes(j))).toBe(true);
  });

  it("refuses a split on a file that has no parts, and a malformed split in a download link", async () => {
    await expect(
      startExport(t.db, { kind: "journal", batchId, split: "0123456789abcdef", bom: false, ...CLI }),
    ).rejects.toMatchObject({ code: "INVALID_INPUT", field: "split" });
    const query = new URLSearchParams({ batch: batchId, part: "2", split: "NOT-A-SPLIT" });
    expect(() => parseExportQuery("journal-xero", query)).toThrow(/^split: must be the 16 hex digits/);
    query.set("split", "0123456789abcdef");
    expect(parseExportQuery("journal-xero", query)).toMatchObject({ part: 2, split: "0123456789abcdef" });
  });

  it("writing the parts to files: all of the moment it began, read once; a return made meanwhile in none", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-split-"));
    try {
      // The parts as downloaded one by one now, each read from the batch's first posting.
      const first = await download(1);
      const listed = [...first.journals];
      for (let part = 2; part <= first.parts; part++)
        listed.push(...(await download(part, first.split ?? "")).journals);
      const written: number[] = [];
      const request = { kind: "journal-xero" as const, batchId, bom: false, ...CLI };
      // An earlier export's set under the same name, with more parts than this one: none of it is left beside it.
      for (let part = 2; part <= 40; part++) await writeFile(path.join(dir, `xero.part-${part}.csv`), "earlier\r\n");
      const files = await writeExportParts(t.db, request, path.join(dir, "xero.csv"), {
        onPartWritten: async (file) => {
          written.push(file.part);
          if (file.part === 1)
            await returnPayment(
              t.db,
              { gameId: GAME, statementId: statementIds[5] as string, reason: "Bank returned it: name mismatch" },
              { actor: { id: "u9", email: "second@payout-desk.test" }, via: "web" },
            );
        },
      });
      expect(files.length).toBe(first.parts);
      expect(files.length).toBeGreaterThanOrEqual(2);
      expect(written).toEqual(files.map((f) => f.part));
      expect(new Set(files.map((f) => f.split))).toEqual(new Set([first.split]));
      expect((await readdir(dir)).sort()).toEqual(files.map((f) => path.basename(f.path)).sort());
      const journalsOf = async (paths: string[]) =>
        (await Promise.all(paths.map((file) => readFile(file, "utf8")))).flatMap((text) => journalNumbers(text));
      // The same journals in the same files as the downloads, though the return was recorded after the first part.
      const set = await journalsOf(files.map((f) => f.path));
      expect(set).toEqual(listed);

      // Run again: the return is in the new set, once.
      const rerun = await writeExportParts(t.db, request, path.join(dir, "xero.csv"));
      const again = await journalsOf(rerun.map((f) => f.path));
      const returns = (journals: string[]) => journals.filter((number) => number.startsWith("RP-")).length;
      expect(returns(again)).toBe(returns(set) + 1);
      expect(again.length).toBe(set.length + 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("writing the parts to files: stopped (Ctrl-C) after the first part, it leaves no file behind", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-split-"));
    try {
      for (let part = 2; part <= 9; part++) await writeFile(path.join(dir, `x.part-${part}.csv`), "earlier\r\n");
      const child = spawn(
        process.execPath,
        ["--import", "./bin/register.mjs", "tests/accounting/programs/interrupted-export.ts", batchId, `${dir}/x.csv`],
        { cwd: path.resolve(import.meta.dirname, "../.."), env: { ...process.env, NODE_OPTIONS: "" } },
      );
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
      });
      const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
      expect(out).toMatch(/^part 1 of [2-9] written\n$/);
      expect({ code, signal }).toEqual({ code: null, signal: "SIGINT" });
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("writing a file: a folder, or a folder that does not exist, is refused before anything is read", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-split-"));
    try {
      const request = { kind: "journal-xero" as const, batchId, bom: false, ...CLI };
      await expect(writeExportParts(t.db, request, dir)).rejects.toMatchObject({ code: "INVALID_INPUT", field: "out" });
      await expect(writeExportParts(t.db, request, path.join(dir, "none", "x.csv"))).rejects.toThrow(
        /The folder of .* does not exist/,
      );
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("serves a part's rows from the same moment as its split check, whatever is recorded in between", async () => {
    const first = await download(1);
    const listed = first.split as string;
    const started = await startExport(t.db, {
      kind: "journal-xero",
      batchId,
      part: 2,
      split: listed,
      bom: false,
      actor: null,
      via: "web",
    });
    // The split was checked; a return is recorded before the part's rows are read.
    await returnPayment(
      t.db,
      { gameId: GAME, statementId: statementIds[8] as string, reason: "Bank returned it: account frozen" },
      { actor: { id: "u9", email: "second@payout-desk.test" }, via: "web" },
    );
    const chunks: Buffer[] = [];
    for await (const chunk of started.chunks) chunks.push(chunk);
    const [header, ...rows] = parse(Buffer.concat(chunks).toString("utf8")) as string[][];
    const narration = (header ?? []).indexOf("*Narration");
    const second = [...new Set(rows.map((row) => /journal (\S+)$/.exec(row[narration] ?? "")?.[1]))];
    const both = [...first.journals, ...second];
    expect(new Set(both).size).toBe(both.length);
    // The part is the one listed: the listing made after the return is another.
    expect((await download(1)).split).not.toBe(listed);
  });
});

describe("a journal file in one part", () => {
  it("is read from the moment it was asked for: a return recorded meanwhile is in the next file, whole", async () => {
    const recipient = "(player 2010)";
    /** The journals of recipient 2010 in a QuickBooks file, by their Description. */
    const journalsOf = async (started: Awaited<ReturnType<typeof startExport>>) => {
      const chunks: Buffer[] = [];
      for await (const chunk of started.chunks) chunks.push(chunk);
      const rows = parse(Buffer.concat(chunks).toString("utf8"), { columns: true }) as Record<string, string>[];
      const mine = rows.filter((r) => r.Description?.includes(recipient));
      const byJournal = new Map<string, string>();
      for (const r of mine) byJournal.set(r["Journal No"] ?? "", r.Description ?? "");
      return [...byJournal.values()].map((d) => d.split(",")[0]);
    };
    const ask = () => startExport(t.db, { kind: "journal-quickbooks", batchId, bom: false, actor: null, via: "web" });
    const asked = await ask();
    await returnPayment(
      t.db,
      { gameId: GAME, statementId: statementIds[10] as string, reason: "Bank returned it: account closed" },
      { actor: { id: "u9", email: "second@payout-desk.test" }, via: "web" },
    );
    const before = await journalsOf(asked);
    const after = await journalsOf(await ask());
    // Each names its window by its first and last days.
    expect(before[0]).toBe("Revenue share earned: window 2026-03-01 to 2026-03-31");
    expect(after.length).toBe(before.length + 1);
    expect(after.slice(0, before.length)).toEqual(before);
  });
});
