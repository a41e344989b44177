import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as auditExport } from "@/app/api/audit/export/route";
import { closeWindow, readWindowClosing, reopenWindow } from "@/lib/accounting/close";
import { readPayeeTotals, readPayeeTotalsPage, setPayeeThreshold } from "@/lib/accounting/payee-totals";
import { recordAudit } from "@/lib/audit";
import { createDb } from "@/db";
import { sql } from "kysely";
import { preparePayoutBatch } from "@/lib/payouts/batches";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { runDesk } from "../support/desk";
import { actAnonymously, actAs } from "../support/next-request";
import { signInAs } from "../support/users";
import { addGame, insertBatch, insertSnapshot } from "../exports/fixture";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/headers.js", () => import("../support/next-request"));

const GAME = "acct-b";
const MARCH = { startMs: Date.parse("2026-03-01T00:00:00Z"), endMs: Date.parse("2026-04-01T00:00:00Z") };
const APRIL = { startMs: Date.parse("2026-04-01T00:00:00Z"), endMs: Date.parse("2026-05-01T00:00:00Z") };
const FINANCE = { actor: { id: "u-fin", email: "fin@payout-desk.test" }, via: "web" } as const;
let t: TestDatabase;
let dir: string;
let marchBatch: string;
let aprilBatch: string;

async function auditLines(action: string) {
  return t.db.selectFrom("audit_log").selectAll().where("action", "=", action).orderBy("id").execute();
}

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-accounting-"));
  await addGame(t.db, GAME);
  const march = await insertSnapshot(t.db, {
    gameId: GAME,
    start: "2026-03-01T00:00:00Z",
    end: "2026-04-01T00:00:00Z",
    recipients: [],
    lines: [],
  });
  const april = await insertSnapshot(t.db, {
    gameId: GAME,
    start: "2026-04-01T00:00:00Z",
    end: "2026-05-01T00:00:00Z",
    recipients: [],
    lines: [],
  });
  ({ batchId: marchBatch } = await insertBatch(t.db, {
    gameId: GAME,
    snapshotId: march,
    status: "paid",
    statements: [
      { recipientId: 1, name: "Ada", email: "ada@example.test", gross: "700.00", reversed: "0.00", state: "paid" },
      { recipientId: 2, name: "Bo", email: "bo@example.test", gross: "50.10", reversed: "0.00", state: "paid" },
      { recipientId: 3, name: "Cy", email: "cy@example.test", gross: "5.00", reversed: "0.00", state: "carried" },
    ],
  }));
  ({ batchId: aprilBatch } = await insertBatch(t.db, {
    gameId: GAME,
    snapshotId: april,
    status: "approved",
    statements: [
      { recipientId: 1, name: "Ada", email: "ada@example.test", gross: "10.00", reversed: "0.00", state: "approved" },
    ],
  }));
});
afterAll(async () => {
  await t?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("closing a window", () => {
  it("refuses to close a window whose batch is not paid yet", async () => {
    const state = await readWindowClosing(t.db, { gameId: GAME, window: APRIL, batchStatus: "approved", held: 0 });
    expect(state.closeBlockedBy).toMatch(/once its payout batch is paid/);
    await expect(closeWindow(t.db, { gameId: GAME, window: APRIL, reason: "month end" }, FINANCE)).rejects.toThrow(
      /batch is approved/,
    );
    expect(aprilBatch).toBeTruthy();
  });

  it("closes a paid window with its reason, audited; no new batch for it until reopened", async () => {
    await closeWindow(t.db, { gameId: GAME, window: MARCH, reason: "March books closed" }, FINANCE);
    const state = await readWindowClosing(t.db, { gameId: GAME, window: MARCH, batchStatus: "paid", held: 0 });
    expect(state).toMatchObject({ closed: true, last: { reason: "March books closed", batchId: marchBatch } });
    const [line] = await auditLines("payouts.window_close");
    expect(line).toMatchObject({
      actor_email: "fin@payout-desk.test",
      via: "web",
      game_id: GAME,
      outcome: "succeeded",
    });
    expect(line?.detail).toMatchObject({ reason: "March books closed", batch_id: marchBatch });

    // The window still has its paid batch; the closing is what is checked first and named.
    await expect(
      preparePayoutBatch(
        t.db,
        { gameId: GAME, window: MARCH },
        { actor: { id: "u-fin", email: "fin@payout-desk.test" }, via: "web" },
      ),
    ).rejects.toThrow(/is closed, its books final: no new payout batch covers any part of it/);
    await expect(closeWindow(t.db, { gameId: GAME, window: MARCH, reason: "again" }, FINANCE)).rejects.toThrow(
      /already closed/,
    );
  });

  it("refuses to close a paid batch's window while a statement of it is held, still owed", async () => {
    const february = await insertSnapshot(t.db, {
      gameId: GAME,
      start: "2026-02-01T00:00:00Z",
      end: "2026-03-01T00:00:00Z",
      recipients: [],
      lines: [],
    });
    await insertBatch(t.db, {
      gameId: GAME,
      snapshotId: february,
      status: "paid",
      statements: [
        { recipientId: 1, name: "Ada", email: "ada@example.test", gross: "4.00", reversed: "0.00", state: "carried" },
        { recipientId: 2, name: "Bo", email: "bo@example.test", gross: "30.00", reversed: "0.00", state: "held" },
      ],
    });
    const window = { startMs: Date.parse("2026-02-01T00:00:00Z"), endMs: Date.parse("2026-03-01T00:00:00Z") };
    const why =
      "The window [2026-02-01T00:00:00Z, 2026-03-01T00:00:00Z) cannot be closed: 1 statement of its batch is held, " +
      "still owed. Release and pay, or carry forward, each held statement first.";
    const state = await readWindowClosing(t.db, { gameId: GAME, window, batchStatus: "paid", held: 1 });
    expect(state.closeBlockedBy).toBe(why);
    await expect(closeWindow(t.db, { gameId: GAME, window, reason: "February books closed" }, FINANCE)).rejects.toThrow(
      why,
    );
    expect((await readWindowClosing(t.db, { gameId: GAME, window, batchStatus: "paid", held: 1 })).closed).toBe(false);
  });

  it("reopens only a closed window, with a reason, audited", async () => {
    await expect(reopenWindow(t.db, { gameId: GAME, window: APRIL, reason: "typo" }, FINANCE)).rejects.toThrow(
      /not closed/,
    );
    await reopenWindow(t.db, { gameId: GAME, window: MARCH, reason: "Late correction from the bank" }, FINANCE);
    const state = await readWindowClosing(t.db, { gameId: GAME, window: MARCH, batchStatus: "paid", held: 0 });
    expect(state).toMatchObject({ closed: false, last: { closed: false, reason: "Late correction from the bank" } });
    const [line] = await auditLines("payouts.window_reopen");
    expect(line?.detail).toMatchObject({ reason: "Late correction from the bank" });
  });
});

describe("year-end payee totals", () => {
  it("adds up what was paid by payment date, per recipient, against the year's threshold", async () => {
    const before = await readPayeeTotals(t.db, { gameId: GAME, year: 2026 });
    expect(before.thresholdUsd).toBeNull();
    expect(before.rows.map((r) => [r.recipientPlayerId, r.netUsd, r.reachesThreshold, r.taxFormOnFile])).toEqual([
      ["1", "700.00", "no threshold set", "unknown"],
      ["2", "50.10", "no threshold set", "unknown"],
    ]);
    await setPayeeThreshold(t.db, { year: 2026, amountUsd: "600.00" }, FINANCE);
    const after = await readPayeeTotals(t.db, { gameId: GAME, year: 2026 });
    expect(after.rows.map((r) => [r.recipientPlayerId, r.paidUsd, r.returnedUsd, r.reachesThreshold])).toEqual([
      ["1", "700.00", "0.00", "yes"],
      ["2", "50.10", "0.00", "no"],
    ]);
    expect((await readPayeeTotals(t.db, { gameId: GAME, year: 2025 })).rows).toEqual([]);
    expect(await auditLines("accounting.payee_threshold")).toHaveLength(1);
    // The page's read: a page of the same rows, the counts over the year, a page past the end the last one.
    const page = (year: number, offset: number) => readPayeeTotalsPage(t.db, { gameId: GAME, year, offset, limit: 1 });
    expect(await page(2026, 0)).toMatchObject({ rows: [after.rows[0]], total: 2, reaching: 1, offset: 0 });
    for (const offset of [1, 7]) expect(await page(2026, offset)).toMatchObject({ rows: [after.rows[1]], offset: 1 });
    expect(await page(2025, 3)).toMatchObject({ rows: [], total: 0, reaching: 0, offset: 0, thresholdUsd: null });
  });

  it("records what each of several changes made at once replaced, one after the other", async () => {
    const amounts = ["100.00", "200.00", "300.00", "400.00"];
    await Promise.all(amounts.map((amountUsd) => setPayeeThreshold(t.db, { year: 2031, amountUsd }, FINANCE)));
    const lines = (await auditLines("accounting.payee_threshold"))
      .map((l) => l.detail as { year: number; amount_usd: string; before: string | null })
      .filter((d) => d.year === 2031);
    expect(lines).toHaveLength(4);
    // Each change's "before" is the amount the change before it set: none is lost between two at once.
    expect(lines.map((d) => d.before)).toEqual([null, ...lines.slice(0, -1).map((d) => d.amount_usd)]);
  });
});

describe("year-end payee totals with returns and tax forms", () => {
  it("takes a returned payment out of the year it was made and reads the tax form from the profile", async () => {
    const statement = await t.db
      .selectFrom("payout_statement")
      .select("id")
      .where("batch_id", "=", marchBatch)
      .where("recipient_player_id", "=", "2")
      .executeTakeFirstOrThrow();
    const returned = (paidOn: string, at: string) => ({
      game_id: GAME,
      batch_id: marchBatch,
      statement_id: statement.id,
      recipient_player_id: 2,
      kind: "returned" as const,
      amount_usd: "50.10",
      reason: "account closed",
      paid_at: `${paidOn}T12:00:00Z`,
      paid_on: paidOn,
      via: "web",
      at,
    });
    // Paid on 30 December 2025, back on 3 January 2026; paid again on 28 March, back on 1 April; then paid for good.
    await t.db
      .insertInto("payment_return")
      .values([returned("2025-12-30", "2026-01-03T09:00:00Z"), returned("2026-03-28", "2026-04-01T09:00:00Z")])
      .execute();
    // A rejected payment never left: it moves nothing.
    await t.db
      .insertInto("payment_return")
      .values({ ...returned("2026-03-20", "2026-03-21T09:00:00Z"), kind: "rejected", paid_at: null, paid_on: null })
      .execute();
    await t.db
      .insertInto("payout_profile")
      .values([
        { game_id: GAME, player_id: "1", tax_form: "W-9", tax_form_received_on: "2026-01-10" },
        { game_id: GAME, player_id: "2", tax_form: "W-8BEN", tax_form_expires_on: "2026-06-30" },
        { game_id: GAME, player_id: "3", tax_form: "none" },
      ])
      .execute();

    const y2026 = await readPayeeTotals(t.db, { gameId: GAME, year: 2026 });
    expect(
      y2026.rows.map((r) => [r.recipientPlayerId, r.paidUsd, r.returnedUsd, r.netUsd, r.payments, r.taxFormOnFile]),
    ).toEqual([
      ["1", "700.00", "0.00", "700.00", 1, "W-9"],
      // 28 March came back; the payment that stood reached the payee in 2026.
      ["2", "100.20", "50.10", "50.10", 1, "W-8BEN (expired 2026-06-30)"],
    ]);
    // 30 December came back (recorded in January): 2025 paid the payee nothing.
    const y2025 = await readPayeeTotals(t.db, { gameId: GAME, year: 2025 });
    expect(
      y2025.rows.map((r) => [r.recipientPlayerId, r.paidUsd, r.returnedUsd, r.netUsd, r.payments, r.taxFormOnFile]),
    ).toEqual([["2", "50.10", "50.10", "0.00", 0, "W-8BEN"]]);
  });
});

describe("audit log download", () => {
  it("is refused without a session", async () => {
    actAnonymously();
    const response = await auditExport(new Request("http://localhost:3000/api/audit/export"), {
      params: Promise.resolve({}),
    });
    expect(response.status).toBe(401);
  });

  it("holds exactly the entries the page's filters select, and is itself audited", async () => {
    for (const n of [1, 2, 3])
      await recordAudit(t.db, {
        actor: null,
        via: "web",
        action: "test.kept",
        target: `kept-${n}`,
        outcome: "succeeded",
      });
    await recordAudit(t.db, { actor: null, via: "web", action: "test.other", target: "kept-4", outcome: "succeeded" });
    actAs(await signInAs(t.db, "viewer"));
    const response = await auditExport(
      new Request("http://localhost:3000/api/audit/export?action=test.kept&target=kept"),
      { params: Promise.resolve({}) },
    );
    expect(response.status).toBe(200);
    const [header, ...rows] = parse(await response.text()) as string[][];
    const col = (name: string) => (header ?? []).indexOf(name);
    expect(rows.map((r) => r[col("target")])).toEqual(["kept-3", "kept-2", "kept-1"]);
    expect(new Set(rows.map((r) => r[col("action")]))).toEqual(new Set(["test.kept"]));
    const lines = await auditLines("export.audit-log");
    expect(lines.map((l) => l.outcome)).toEqual(["started", "succeeded"]);
    expect(lines[1]?.detail).toMatchObject({ rows: 3, filters: { action: "test.kept", target: "kept" } });

    // A time the page could not read is not dropped from a download: it is refused, and nothing is exported.
    const unread = await auditExport(
      new Request("http://localhost:3000/api/audit/export?action=test.kept&from=2026-13-01"),
      { params: Promise.resolve({}) },
    );
    expect(unread.status).toBe(400);
    expect(await unread.json()).toMatchObject({ error: { code: "INVALID_INPUT" } });
    expect(await auditLines("export.audit-log")).toHaveLength(2);
  });

  it("holds the log as it stood when the download began: none of the lines committed meanwhile", async () => {
    // A long transaction (a profile import writes a line a row) takes its ids first and commits mid-download.
    const other = createDb(t.url, { max: 1 });
    const late = await other.startTransaction().execute();
    const line = (action: string, target: string) => ({
      actor: null,
      via: "web" as const,
      action,
      target,
      outcome: "ok",
    });
    for (const n of [1, 2, 3]) await recordAudit(late, line("test.snap", `late-${n}`));
    await sql`insert into audit_log (via, action, target, outcome, detail)
      select 'web', 'test.snap', 'early-' || n, 'ok', '{}'::jsonb from generate_series(1, 1500) n`.execute(t.db);
    actAs(await signInAs(t.db, "viewer"));
    const response = await auditExport(new Request("http://localhost:3000/api/audit/export?action=test.snap"), {
      params: Promise.resolve({}),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const chunks: Uint8Array[] = [];
    const first = await reader.read();
    if (first.value) chunks.push(first.value);
    await late.commit().execute();
    await other.destroy();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    const [header, ...rows] = parse(Buffer.concat(chunks).toString("utf8")) as string[][];
    const targets = rows.map((r) => r[(header ?? []).indexOf("target")] ?? "");
    expect(targets).toHaveLength(1500);
    expect(targets.filter((target) => target.startsWith("late-"))).toEqual([]);
  });
});

const desk = (...args: string[]) => runDesk(t.url, args);

describe("npm run desk", () => {
  it("maps an account (audited as cli) and refuses an unknown account with one line", async () => {
    const mapExpense = (...flags: string[]) =>
      desk("accounts", "map", "--game", GAME, "--account", "expense", ...flags);
    const mapped = await mapExpense("--code", "6100", "--tax-rate", "No GST");
    expect(mapped.code, mapped.stderr).toBe(0);
    expect(JSON.parse(mapped.stdout)).toMatchObject({
      game: GAME,
      account: "expense",
      code: "6100",
      taxRate: "No GST",
    });
    const [line] = await auditLines("accounting.map_account");
    expect(line).toMatchObject({ via: "cli", target: "expense", outcome: "succeeded" });
    // A new code without --tax-rate keeps the tax rate mapped; an empty one clears it.
    const recoded = await mapExpense("--code", "6150");
    expect(JSON.parse(recoded.stdout)).toMatchObject({ code: "6150", taxRate: "No GST", changed: true });
    const cleared = await mapExpense("--code", "6150", "--tax-rate", "");
    expect(JSON.parse(cleared.stdout)).toMatchObject({ code: "6150", taxRate: null, changed: true });
    const refused = await desk("accounts", "map", "--game", GAME, "--account", "bank", "--code", "1");
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/--account: must be one of expense, payable, clearing, returns/);
  });

  it("exports payee totals of a year and refuses a journal file while accounts are unmapped", async () => {
    const out = path.join(dir, "totals.csv");
    const result = await desk("export", "--game", GAME, "--kind", "payee-totals", "--year", "2026", "--out", out);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ kind: "payee-totals", year: 2026, rows: 2 });
    const [header, ...rows] = parse(await readFile(out, "utf8")) as string[][];
    expect(header).toContain("tax_form_on_file");
    expect(rows.map((r) => r[(header ?? []).indexOf("reaches_threshold")])).toEqual(["yes", "no"]);
    // A game mistyped is refused, not exported as a year in which nobody was paid.
    const other = path.join(dir, "other.csv");
    const unknown = await desk(
      "export",
      "--game",
      "acct-typo",
      "--kind",
      "payee-totals",
      "--year",
      "2026",
      "--out",
      other,
    );
    expect(unknown.code).not.toBe(0);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toMatch(/No game acct-typo/);
    expect((await readdir(dir)).filter((f) => f.includes("other"))).toEqual([]);

    const xero = await desk(
      "export",
      "--batch",
      aprilBatch,
      "--kind",
      "journal-xero",
      "--out",
      path.join(dir, "x.csv"),
    );
    expect(xero.code).not.toBe(0);
    expect(xero.stderr).toMatch(/payable .*clearing|map payable/);
    expect(xero.stderr).toContain("/settings/accounting");
    expect((await readdir(dir)).filter((f) => f.startsWith("x") || f.startsWith(".x"))).toEqual([]);
  });
});
