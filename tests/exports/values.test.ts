import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET } from "@/app/api/exports/[kind]/route";
import { LINE_COLUMNS, selectLineCells } from "@/lib/exports/lines";
import { neutraliseText, restoreText } from "@/lib/exports/csv";
import { REVERSAL_COLUMNS } from "@/lib/exports/reversals";
import { formatInstant } from "@/lib/time";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAs } from "../support/next-request";
import { signInAs } from "../support/users";
import { addGame, insertSnapshot, type LineInput, type RecipientInput } from "./fixture";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/headers.js", () => import("../support/next-request"));

/**
 * Issue 5, done means 3: an export opened by a CSV parser gives back every value exactly (decimals, names with
 * commas, quotes, newlines, non-Latin text), and a name like =HYPERLINK(...) cannot run as a formula.
 */

const GAME = "exp-a";
const HYPERLINK = '=HYPERLINK("http://x","y")';
const FORMULA_START = /^[=+\-@\t\r]/;

const RECIPIENTS: RecipientInput[] = [
  { id: 501, name: 'Lee, "Scratch" Perry', email: "lee@example.test" },
  { id: 502, name: "Line one\nLine two\r\nLine three", email: "lines@example.test" },
  { id: 503, name: "Zoë Ångström – 東京タワー – Дмитрий – مرحبا – 🎮", email: "zoë@例え.test" },
  { id: 504, name: HYPERLINK, email: "=1+2@evil.test" },
  { id: 505, name: "+44 20 7946 0000", email: "@handle" },
  { id: 506, name: "-minus first", email: "\ttabbed@example.test" },
  { id: 507, name: "\rcarriage", email: "'quoted@example.test" },
  { id: 508, name: "  spaced , trailing ;=1+1;'x;\t@y  ", email: null, resolved: false },
];

const LINES: LineInput[] = [
  { periodId: 9001, recipientId: 501, paidAt: "2026-03-01T00:00:00Z", amountUsd: "10.00", attributedUsd: "1.80" },
  { periodId: 9002, recipientId: 502, paidAt: "2026-03-05T12:30:45.123Z", amountUsd: "-5.25", attributedUsd: "-0.35" },
  {
    periodId: 9003,
    recipientId: 503,
    paidAt: "2026-03-09T23:59:59Z",
    amountUsd: "123456789012.345678",
    attributedUsd: "0.005",
    percent: "12.345",
  },
  {
    periodId: 9004,
    recipientId: 504,
    paidAt: "2026-03-10T00:00:00Z",
    amountUsd: "0",
    attributedUsd: "0.00",
    itemName: "=cmd|' /C calc'!A0",
  },
  {
    periodId: 9005,
    recipientId: 505,
    paidAt: "2026-03-11T00:00:00Z",
    amountUsd: "19.99",
    attributedUsd: null,
    reason: "spend_order_not_found",
  },
  {
    periodId: 9006,
    recipientId: 506,
    paidAt: "2026-03-12T00:00:00Z",
    amountUsd: "4.99",
    attributedUsd: "0.90",
    itemName: 'Pass "Gold", 12 months\nrenewing',
  },
  {
    periodId: 9007,
    recipientId: 507,
    paidAt: "2026-03-13T00:00:00Z",
    amountUsd: "9.99",
    attributedUsd: "1.80",
    itemName: "@SUM(A1:A9)",
  },
  {
    periodId: 9008,
    recipientId: 508,
    paidAt: "2026-03-14T00:00:00Z",
    amountUsd: "1000000.00",
    attributedUsd: "180000.00",
  },
];

let t: TestDatabase;
let snapshotId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, GAME);
  snapshotId = await insertSnapshot(t.db, {
    gameId: GAME,
    start: "2026-03-01T00:00:00Z",
    end: "2026-04-01T00:00:00Z",
    recipients: RECIPIENTS,
    lines: LINES,
    reversals: [
      {
        periodId: 9002,
        recipientId: 504,
        reversedAttributedUsd: "-1.23",
        note: '-note starts with a minus, has a comma, and "quotes"',
        events: [
          {
            refundedAt: "2026-03-20T08:00:00Z",
            amountUsd: "3.33",
            before: "0.00",
            after: "3.33",
            reversedAttributedUsd: "0.60",
            full: false,
          },
          {
            refundedAt: "2026-03-21T08:00:00.5Z",
            amountUsd: "6.67",
            before: "3.33",
            after: "10.00",
            reversedAttributedUsd: "1.20",
            full: true,
          },
        ],
      },
      { periodId: 9003, recipientId: 503, reversedAttributedUsd: "1.80", basis: "period_row", events: [] },
    ],
  });
  actAs(await signInAs(t.db, "finance"));
});
afterAll(async () => t?.drop());

async function download(kind: string, query: string): Promise<{ response: Response; text: string; bytes: Uint8Array }> {
  const response = await GET(new Request(`http://localhost:3000/api/exports/${kind}?${query}`), {
    params: Promise.resolve({ kind }),
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { response, bytes, text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes) };
}

function rowsOf(text: string): Record<string, string>[] {
  return parse(text, { columns: true, bom: true, skip_empty_lines: false, relax_column_count: false }) as Record<
    string,
    string
  >[];
}

/** No text cell starts a formula, nor does any piece of one a spreadsheet splitting cells on semicolons would see. */
function expectNoFormula(rows: Record<string, string>[], textColumns: string[]): void {
  for (const row of rows)
    for (const column of textColumns)
      for (const piece of (row[column] ?? "").split(";"))
        expect(piece, `${column} starts safely`).not.toMatch(FORMULA_START);
}

describe("[finance] CSV values survive a CSV parser exactly", () => {
  it("renewal lines: every text, decimal and instant comes back as stored; formulas are neutralised", async () => {
    const { response, text, bytes } = await download("lines", `snapshot=${snapshotId}&bom=1`);
    expect(response.status, text.slice(0, 300)).toBe(200);
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(text.slice(1).startsWith(`${LINE_COLUMNS.map((c) => c.name).join(",")}\r\n`)).toBe(true);

    const rows = rowsOf(text);
    expect(rows).toHaveLength(LINES.length);
    const stored = await t.db
      .selectFrom("snapshot_line")
      .selectAll()
      .where("snapshot_id", "=", snapshotId)
      .orderBy("period_id")
      .execute();
    for (const [i, line] of stored.entries()) {
      const row = rows[i]!;
      const recipient = RECIPIENTS.find((r) => String(r.id) === line.recipient_player_id)!;
      expect(row.period_id).toBe(line.period_id);
      expect(row.recipient_player_id).toBe(line.recipient_player_id);
      // Decimals: the exact text PostgreSQL holds, never prefixed, a negative sign intact.
      for (const column of [
        "amount_usd",
        "invo_fee_usd",
        "partner_revenue_settled_usd",
        "percent_at_renewal",
        "base_usd",
        "attributed_amount_usd",
      ] as const) {
        expect(row[column], column).toBe(line[column] ?? "");
      }
      expect(row.paid_at).toBe(line.paid_at ? formatInstant(line.paid_at) : "");
      expect(row.period_start).toBe(formatInstant(line.period_start));
      // Text: the original value once the neutralising apostrophe (if any) is dropped.
      expect(restoreText(row.recipient_name!)).toBe(recipient.name ?? "");
      expect(restoreText(row.recipient_email!)).toBe(recipient.email ?? "");
      expect(restoreText(row.item_name!)).toBe(line.item_name);
      expect(row.attribution_unavailable_reason).toBe(line.attribution_unavailable_reason ?? "");
    }
    const byId = new Map(rows.map((r) => [r.recipient_player_id, r]));
    expect(byId.get("504")!.recipient_name).toBe(`'${HYPERLINK}`);
    expect(byId.get("504")!.item_name).toBe("'=cmd|' /C calc'!A0");
    expect(byId.get("502")!.amount_usd).toBe("-5.25");
    expect(byId.get("502")!.attributed_amount_usd).toBe("-0.35");
    expect(byId.get("502")!.paid_at).toBe("2026-03-05T12:30:45.123Z");
    expect(byId.get("503")!.amount_usd).toBe("123456789012.345678");
    expect(byId.get("501")!.recipient_name).toBe('Lee, "Scratch" Perry');
    expect(byId.get("503")!.recipient_name).toBe("Zoë Ångström – 東京タワー – Дмитрий – مرحبا – 🎮");
    expect(byId.get("502")!.recipient_name).toBe("Line one\nLine two\r\nLine three");
    expectNoFormula(
      rows,
      LINE_COLUMNS.filter((c) => c.type === "text").map((c) => c.name),
    );
  });

  it("renewal lines: the file holds exactly what PostgreSQL formats from the same lines in one SELECT", async () => {
    // The export reads the lines in streamed pages and fills in names and instants itself; selectLineCells is
    // the same file as PostgreSQL alone would write it (the statement the export bench COPYs).
    const { response, text } = await download("lines", `snapshot=${snapshotId}`);
    expect(response.status).toBe(200);
    const cells = parse(text, { bom: true }) as string[][];
    expect(cells[0]).toEqual(LINE_COLUMNS.map((c) => c.name));
    const reference = await selectLineCells(t.db, { gameId: GAME, snapshotId }).execute();
    const expected = reference.map((row) =>
      LINE_COLUMNS.map((column) => {
        const value = (row as Record<string, string | null>)[column.name] ?? null;
        if (value === null) return "";
        return column.type === "text" ? neutraliseText(value) : value;
      }),
    );
    expect(expected).toHaveLength(LINES.length);
    expect(cells.slice(1)).toEqual(expected);
  });

  it("reversals: one row per refund event, a reversal without events on one row, values exact", async () => {
    const { response, text } = await download("reversals", `snapshot=${snapshotId}`);
    expect(response.status).toBe(200);
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
    const rows = rowsOf(text);
    expect(rows.map((r) => [r.period_id, r.event_seq])).toEqual([
      ["9002", "1"],
      ["9002", "2"],
      ["9003", ""],
    ]);
    const [first, second, coarse] = rows as [Record<string, string>, Record<string, string>, Record<string, string>];
    expect(first.recipient_name).toBe(`'${HYPERLINK}`);
    expect(first.period_reversed_attributed_usd).toBe("-1.23");
    expect(first.reversed_attributed_usd).toBe("0.60");
    expect(second.reversed_attributed_usd).toBe("1.20");
    expect(second.refunded_at).toBe("2026-03-21T08:00:00.5Z");
    expect(second.cumulative_refunded_before_usd).toBe("3.33");
    expect(second.is_full_refund).toBe("true");
    expect(restoreText(first.note ?? "")).toBe('-note starts with a minus, has a comma, and "quotes"');
    expect(first.note?.startsWith("'")).toBe(true);
    expect(coarse.reversal_basis).toBe("period_row");
    expect(coarse.refunded_at).toBe("");
    expect(coarse.period_reversed_attributed_usd).toBe("1.80");
    // Its row carries the period's share reversed, so that the column sums to what the window reversed.
    expect(coarse.reversed_attributed_usd).toBe("1.80");
    expectNoFormula(
      rows,
      REVERSAL_COLUMNS.filter((c) => c.type === "text").map((c) => c.name),
    );
  });
});
