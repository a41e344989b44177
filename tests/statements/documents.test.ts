import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payoutsExport } from "@/lib/exports/payouts";
import { formatUsdText } from "@/lib/format";
import { renderBatchStatements, renderStatement, type RenderedStatement } from "@/lib/statements/render";
import { insertSnapshot } from "../exports/fixture";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { statementFixture } from "./fixture";
import { pdfText } from "./pdf-text";
import { FIGURE_COLUMNS } from "./support";

const GAME = "stmt-a";
const acting = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "cli" as const };
let t: TestDatabase;
let batchId: string;
const rendered: RenderedStatement[] = [];
const exported = new Map<string, Record<string, string | null>>();

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  ({ marchBatch: batchId } = await statementFixture(t.db, GAME));
  await renderBatchStatements(t.db, { gameId: GAME, batchId }, acting, async (r) => {
    rendered.push(r);
  });
  for await (const page of payoutsExport.pages(t.db, { gameId: GAME, batchId, snapshotId: null } as never))
    for (const row of page as Record<string, string | null>[]) exported.set(row.statement_id ?? "", row);
});
afterAll(async () => t?.drop());

describe("statement documents", () => {
  it("renders one document per statement, numbered per game in recipient order without gaps", () => {
    expect(rendered.map((r) => r.doc.recipient.playerId)).toEqual([901, 902, 903, 904]);
    expect(rendered.map((r) => r.doc.number)).toEqual([1, 2, 3, 4]);
    expect(rendered.map((r) => r.doc.label)).toEqual([
      "PD-stmt-a-000001",
      "PD-stmt-a-000002",
      "PD-stmt-a-000003",
      "PD-stmt-a-000004",
    ]);
  });

  it("prints every figure of the payouts export in the PDF, names in any script included", async () => {
    expect(exported.size).toBe(4);
    for (const r of rendered) {
      const row = exported.get(r.doc.statementId);
      expect(row).toBeDefined();
      const text = await pdfText(r.pdf);
      expect(text).toContain(row?.recipient_name ?? "missing");
      expect(text).toContain(r.doc.label);
      expect(text).toContain(`#${row?.recipient_player_id}`);
      for (const column of FIGURE_COLUMNS)
        expect(text, `${row?.recipient_name} ${column}`).toContain(formatUsdText(row?.[column] ?? "missing"));
      if (row?.state === "paid") {
        expect(text).toContain(row.paid_on ?? "missing");
        expect(text).toContain(row.payment_reference ?? "missing");
        expect(text).toContain("Bank transfer");
        expect(text).toMatch(/Account —/);
      }
      if (row?.state === "held") expect(text).toContain(`Held Reason ${row.hold_reason}`);
      if (row?.state === "carried") expect(text).toContain("Carried Reason Under the minimum payout");
    }
  });

  it("lists carried-in sources, reversals with their window, and every renewal line", async () => {
    const zoe = await pdfText(rendered[1]?.pdf ?? Buffer.alloc(0));
    // The carried-in window names its last day, as every window the statement prints.
    expect(zoe).toContain("2026-02-01 to 2026-02-28");
    expect(zoe).not.toContain("2026-02-01 to 2026-03-01");
    // The statement it came from by its number, which a recipient knows, never an internal id; February's was never
    // issued, so it has none.
    expect(zoe).toContain("— 2026-02-01 to 2026-02-28 USD 6.00");
    expect(zoe).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    const ha = await pdfText(rendered[3]?.pdf ?? Buffer.alloc(0));
    expect(ha).toMatch(/SUB_1700000000_00000990 #990 2026-03-20 2026-03-01 to 2026-03-31 USD 1\.80/);
    const anna = await pdfText(rendered[0]?.pdf ?? Buffer.alloc(0));
    expect(anna).toContain("#1001 2026-03-03 Pass 20.00% USD 25.10");
    expect(anna).toContain("#1002 2026-03-09 Pass 20.00% USD 15.00");
  });

  it("writes the same figures to the CSV", () => {
    for (const r of rendered) {
      const row = exported.get(r.doc.statementId);
      // UTF-8 with a byte order mark, which a spreadsheet needs to read the names in any script.
      expect(r.csv.startsWith("\uFEFFsection,")).toBe(true);
      const cells = parse(r.csv, { columns: true, bom: true }) as Record<string, string>[];
      const summary = (item: string) => cells.find((c) => c.section === "summary" && c.item === item)?.amount_usd;
      expect(summary("carried_in")).toBe(row?.carried_in_usd);
      expect(summary("renewals")).toBe(row?.gross_attributed_usd);
      expect(summary("reversals")).toBe(row?.reversed_attributed_usd);
      expect(summary("net")).toBe(row?.net_attributed_usd);
      expect(summary("payable")).toBe(row?.payable_usd);
      expect(summary("carried_out")).toBe(row?.carry_out_usd);
      expect(cells.find((c) => c.section === "recipient" && c.item === "name")?.detail).toBe(row?.recipient_name);
      // Every window named the one way, start and end instants, so a spreadsheet can filter the column.
      for (const c of cells.filter((cell) => cell.window !== ""))
        expect(c.window).toMatch(/^\d{4}-\d\d-\d\dT00:00:00Z\/\d{4}-\d\d-\d\dT00:00:00Z$/);
    }
    const ha = parse(rendered[3]?.csv ?? "", { columns: true, bom: true }) as Record<string, string>[];
    expect(ha.filter((c) => c.section === "reversal").map((c) => [c.item, c.date, c.window, c.amount_usd])).toEqual([
      ["SUB_1700000000_00000990 #990", "2026-03-20", "2026-03-01T00:00:00Z/2026-04-01T00:00:00Z", "-1.80"],
    ]);
  });

  it("renders the same statement twice to the same bytes and number, each SHA-256 in the audit log", async () => {
    const first = rendered[2];
    const again = await renderStatement(t.db, { gameId: GAME, statementId: first?.doc.statementId ?? "" }, acting);
    expect(again.doc.number).toBe(first?.doc.number);
    expect(again.pdfSha256).toBe(first?.pdfSha256);
    expect(again.csvSha256).toBe(first?.csvSha256);
    expect(Buffer.compare(again.pdf, first?.pdf ?? Buffer.alloc(0))).toBe(0);
    const audits = await t.db
      .selectFrom("audit_log")
      .select(["actor_email", "via", "detail"])
      .where("action", "=", "statement.render")
      .where("target", "=", first?.doc.statementId ?? "")
      .execute();
    expect(audits).toHaveLength(2);
    for (const a of audits) {
      expect(a.actor_email).toBe("finance@payout-desk.test");
      expect(a.via).toBe("cli");
      expect((a.detail as { pdfSha256: string }).pdfSha256).toBe(first?.pdfSha256);
    }
  });

  it("keeps numbers when the batch is rendered again", async () => {
    const numbers: number[] = [];
    await renderBatchStatements(t.db, { gameId: GAME, batchId }, acting, async (r) => {
      numbers.push(r.doc.number);
    });
    expect(numbers).toEqual([1, 2, 3, 4]);
    const counter = await t.db.selectFrom("statement_counter").selectAll().where("game_id", "=", GAME).execute();
    expect(counter[0]?.last_number).toBe(4);
  });

  it("names the window a reversed renewal was paid in, whatever other windows holding it were read since", async () => {
    // Two more windows hold the reversed renewal (1 March): the first half of March (read twice) and the quarter.
    const empty = { gameId: GAME, recipients: [], lines: [] };
    for (const version of [1, 2])
      await insertSnapshot(t.db, { ...empty, start: "2026-03-01T00:00:00Z", end: "2026-03-15T00:00:00Z", version });
    await insertSnapshot(t.db, { ...empty, start: "2026-01-01T00:00:00Z", end: "2026-04-01T00:00:00Z" });
    const first = rendered[3];
    const again = await renderStatement(t.db, { gameId: GAME, statementId: first?.doc.statementId ?? "" }, acting);
    expect(again.doc.reversals.map((r) => r.fromWindow)).toEqual(["2026-03-01 to 2026-03-31"]);
    expect(again.pdfSha256).toBe(first?.pdfSha256);
  });
});
