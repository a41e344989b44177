import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET } from "@/app/api/exports/[kind]/route";
import { restoreText } from "@/lib/exports/csv";
import { JOURNAL_ACCOUNTS } from "@/lib/exports/journal";
import { Money, sumMoney } from "@/lib/money";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAs } from "../support/next-request";
import { signInAs } from "../support/users";
import { addGame, insertBatch, insertSnapshot, type StatementInput } from "./fixture";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/headers.js", () => import("../support/next-request"));

const GAME = "exp-a";
const HYPERLINK = '=HYPERLINK("http://x","y")';
let t: TestDatabase;
let februarySnapshot: string;
let marchSnapshot: string;
let marchBatch: string;
let draftSnapshot: string;
let marchStatements: StatementInput[];

async function snapshotOf(start: string, end: string): Promise<string> {
  return insertSnapshot(t.db, { gameId: GAME, start, end, recipients: [], lines: [] });
}

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, GAME);
  februarySnapshot = await snapshotOf("2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z");
  marchSnapshot = await snapshotOf("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z");
  draftSnapshot = await snapshotOf("2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z");

  // February: recipient 801 goes negative (reversals above gross) and carries -7.50 forward.
  const february = await insertBatch(t.db, {
    gameId: GAME,
    snapshotId: februarySnapshot,
    status: "paid",
    statements: [
      { recipientId: 800, name: "Ada", email: "ada@example.test", gross: "100.00", reversed: "0.00", state: "paid" },
      {
        recipientId: 801,
        name: "Négatif, Inc.",
        email: "neg@example.test",
        gross: "5.00",
        reversed: "12.50",
        state: "carried",
      },
    ],
  });
  marchStatements = [
    {
      recipientId: 800,
      name: "Ada",
      email: "ada@example.test",
      gross: "40.10",
      reversed: "0.35",
      state: "paid",
      paymentReference: "=SUM(1,2)",
    },
    // Recovers: -7.50 carried in against 20.00 earned, 12.50 paid.
    {
      recipientId: 801,
      name: "Négatif, Inc.",
      email: "neg@example.test",
      gross: "20.00",
      reversed: "0.00",
      carriedIn: "-7.50",
      state: "paid",
    },
    // Under the 10.00 minimum: rolls over, nothing paid.
    {
      recipientId: 802,
      name: "Small\nPayee",
      email: "small@example.test",
      gross: "8.00",
      reversed: "0.00",
      state: "carried",
    },
    {
      recipientId: 803,
      name: HYPERLINK,
      email: "-x@example.test",
      gross: "55.55",
      reversed: "5.55",
      state: "held",
      holdReason: "-Tax form missing",
      flags: ["unresolved", "drift"],
    },
    { recipientId: 804, name: null, email: null, gross: "12.00", reversed: "1.00", state: "approved" },
  ];
  const march = await insertBatch(t.db, {
    gameId: GAME,
    snapshotId: marchSnapshot,
    status: "approved",
    statements: marchStatements,
  });
  marchBatch = march.batchId;
  const feb801 = february.statementIds[1]!;
  const mar801 = march.statementIds[1]!;
  await t.db
    .insertInto("payout_carry")
    .values({ from_statement_id: feb801, to_statement_id: mar801, amount_usd: "-7.50" })
    .execute();
  await insertBatch(t.db, {
    gameId: GAME,
    snapshotId: draftSnapshot,
    status: "draft",
    statements: [marchStatements[0]!],
  });
  actAs(await signInAs(t.db, "finance"));
});
afterAll(async () => t?.drop());

async function download(
  kind: string,
  query: string,
): Promise<{ status: number; rows: Record<string, string>[]; body: string }> {
  const response = await GET(new Request(`http://localhost:3000/api/exports/${kind}?${query}`), {
    params: Promise.resolve({ kind }),
  });
  const body = await response.text();
  return {
    status: response.status,
    body,
    rows: response.status === 200 ? (parse(body, { columns: true }) as Record<string, string>[]) : [],
  };
}

describe("[finance] payout file", () => {
  it("has one row per statement with the exact figures, states and payment fields", async () => {
    const { status, rows, body } = await download("payouts", `snapshot=${marchSnapshot}`);
    expect(status, body).toBe(200);
    expect(rows.map((r) => r.recipient_player_id)).toEqual(["800", "801", "802", "803", "804"]);
    const [ada, recovered, small, held, unresolved] = rows as Record<string, string>[] & { length: 5 };
    expect(ada).toMatchObject({
      batch_id: marchBatch,
      state: "paid",
      gross_attributed_usd: "40.10",
      reversed_attributed_usd: "0.35",
      net_attributed_usd: "39.75",
      payable_usd: "39.75",
      paid_amount_usd: "39.75",
      paid_on: "2026-04-03",
      payment_method: "bank_transfer",
    });
    // A payment reference that looks like a formula is neutralised; the amounts beside it are plain numbers.
    expect(ada!.payment_reference).toBe("'=SUM(1,2)");
    expect(recovered).toMatchObject({
      carried_in_usd: "-7.50",
      available_usd: "12.50",
      payable_usd: "12.50",
      carry_out_usd: "0.00",
      recipient_name: "Négatif, Inc.",
    });
    expect(small).toMatchObject({
      payable_usd: "0.00",
      carry_out_usd: "8.00",
      state: "carried",
      recipient_name: "Small\nPayee",
    });
    expect(held).toMatchObject({
      state: "held",
      recipient_name: `'${HYPERLINK}`,
      recipient_email: "'-x@example.test",
      hold_reason: "'-Tax form missing",
      flags: "unresolved; drift",
      net_attributed_usd: "50.00",
    });
    expect(restoreText(held!.recipient_name!)).toBe(HYPERLINK);
    expect(unresolved).toMatchObject({
      resolved: "false",
      recipient_name: "",
      recipient_email: "",
      state: "approved",
      paid_amount_usd: "",
    });
    expect(ada!.window_start).toBe("2026-03-01T00:00:00Z");
  });

  it("by batch id gives the same file as by snapshot id", async () => {
    const bySnapshot = await download("payouts", `snapshot=${marchSnapshot}`);
    const byBatch = await download("payouts", `batch=${marchBatch}`);
    expect(byBatch.body).toBe(bySnapshot.body);
  });
});

describe("[finance] journal", () => {
  it("balances per entry, posts only accrual, reversal and payment, and adds up to the statements", async () => {
    const { status, rows, body } = await download("journal", `batch=${marchBatch}`);
    expect(status, body).toBe(200);
    expect(rows.length).toBeGreaterThan(0);
    const entries = new Map<string, Record<string, string>[]>();
    for (const row of rows) entries.set(row.entry_id!, [...(entries.get(row.entry_id!) ?? []), row]);
    for (const [id, lines] of entries) {
      expect(
        lines.map((l) => l.line),
        id,
      ).toEqual(["1", "2"]);
      expect(
        sumMoney(lines.map((l) => l.debit_usd!)).equals(sumMoney(lines.map((l) => l.credit_usd!))),
        `${id} balances`,
      ).toBe(true);
      expect(new Set(lines.map((l) => l.account)).size, `${id} moves between two accounts`).toBe(2);
      for (const l of lines) expect(l.debit_usd === "0.00" || l.credit_usd === "0.00").toBe(true);
    }
    expect(new Set(rows.map((r) => r.kind))).toEqual(new Set(["accrual", "reversal", "payment"]));
    // No payment of this batch came back, so nothing posts to returns.
    const { returns: _returns, ...posted } = JOURNAL_ACCOUNTS;
    expect(new Set(rows.map((r) => r.account))).toEqual(new Set(Object.values(posted)));

    const balance = (account: string) =>
      sumMoney(rows.filter((r) => r.account === account).map((r) => r.credit_usd!)).minus(
        sumMoney(rows.filter((r) => r.account === account).map((r) => r.debit_usd!)),
      );
    const gross = sumMoney(marchStatements.map((s) => s.gross));
    const reversed = sumMoney(marchStatements.map((s) => s.reversed));
    const paid = new Money("39.75").plus("12.50");
    // Expense carries net attributed; payable what is owed after payments; clearing what went out.
    expect(balance(JOURNAL_ACCOUNTS.expense).negated().equals(gross.minus(reversed))).toBe(true);
    expect(balance(JOURNAL_ACCOUNTS.payable).equals(gross.minus(reversed).minus(paid))).toBe(true);
    expect(balance(JOURNAL_ACCOUNTS.clearing).equals(paid)).toBe(true);

    const payment = rows.find((r) => r.kind === "payment" && r.recipient_player_id === "801" && r.line === "1")!;
    expect(payment).toMatchObject({
      account: JOURNAL_ACCOUNTS.payable,
      debit_usd: "12.50",
      posting_date: "2026-04-03",
      payment_method: "bank_transfer",
    });
    const reversal = rows.find((r) => r.kind === "reversal" && r.recipient_player_id === "803" && r.line === "1")!;
    expect(reversal).toMatchObject({
      account: JOURNAL_ACCOUNTS.payable,
      debit_usd: "5.55",
      posting_date: "2026-04-02",
      recipient_name: `'${HYPERLINK}`,
    });
    const accrual = rows.find((r) => r.kind === "accrual" && r.recipient_player_id === "800" && r.line === "2")!;
    expect(accrual).toMatchObject({
      account: JOURNAL_ACCOUNTS.payable,
      credit_usd: "40.10",
      recorded_at: "2026-04-02T09:15:00Z",
    });
  });

  it("refuses a draft batch (nothing is posted before approval)", async () => {
    const { status, body } = await download("journal", `snapshot=${draftSnapshot}`);
    expect(status).toBe(409);
    expect(body).toContain("until the batch is approved");
  });

  it(
    "sends a browser opening a refused download to the page " + "that says why; a script still gets the JSON error",
    async () => {
      const browser = await GET(
        new Request(`http://localhost:3000/api/exports/journal?snapshot=${draftSnapshot}&bom=1`, {
          headers: {
            Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            "Sec-Fetch-Mode": "navigate",
          },
        }),
        { params: Promise.resolve({ kind: "journal" }) },
      );
      expect(browser.status).toBe(303);
      // The refusal page's link to try again asks for the same file, its byte-order mark included.
      expect(browser.headers.get("location")).toBe(
        `/payouts/export-refused?kind=journal&snapshot=${draftSnapshot}&bom=1`,
      );
      expect(browser.headers.get("content-disposition")).toBeNull();
      const script = await GET(
        new Request(`http://localhost:3000/api/exports/journal?snapshot=${draftSnapshot}`, {
          headers: { Accept: "*/*" },
        }),
        {
          params: Promise.resolve({ kind: "journal" }),
        },
      );
      expect(script.status).toBe(409);
      expect(((await script.json()) as { error: { message: string } }).error.message).toContain(
        "until the batch is approved",
      );
    },
  );
});
