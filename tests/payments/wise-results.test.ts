import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "csv-parse/sync";
import type { Db } from "@/db";
import { downloadPaymentFile } from "@/lib/payments/file-access";
import { createPaymentFiles } from "@/lib/payments/files";
import { importResults } from "@/lib/payments/results";
import { changePayoutDetails } from "@/lib/profiles/profiles";
import { payoutDetailsInputSchema } from "@/lib/profiles/schemas";
import type { TestDatabase } from "../support/db";
import { createProfilesDatabase } from "../profiles/support";
import { GAME, web } from "../payouts/fixtures";
import { approvedBatch, approver, finance, preparer, statesOf } from "./support";

/**
 * A Wise file is sent USD for Wise to convert (fixed-source): its results are checked against the USD sent, whether
 * they give the source side or a target amount after Wise's fee, and a target amount Wise converted is not compared.
 */

let t: TestDatabase;
let db: Db;
let batchId: string;
const refs = new Map<number, string>();

const wise = (id: number, currency: "USD" | "EUR") =>
  payoutDetailsInputSchema.parse({
    method: "wise",
    currency,
    wiseEmail: `w${id}@example.com`,
    wiseName: `Wise Player ${id}`,
  });

/** A Wise transfers CSV with the given columns; each row's first cell is a recipient, looked up as its reference. */
function wiseResults(columns: string[], rows: (string | number)[][]): string {
  const lines = rows.map(([who, ...cells]) => [refs.get(Number(who)) ?? String(who), ...cells].join(","));
  return [["reference", ...columns].join(","), ...lines].join("\r\n");
}

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  db = t.db;
  await changePayoutDetails(db, { gameId: GAME, playerId: 1, input: wise(1, "USD") }, finance);
  await changePayoutDetails(db, { gameId: GAME, playerId: 2, input: wise(2, "USD") }, finance);
  await changePayoutDetails(db, { gameId: GAME, playerId: 3, input: wise(3, "EUR") }, finance);
  await changePayoutDetails(db, { gameId: GAME, playerId: 4, input: wise(4, "EUR") }, finance);
  batchId = await approvedBatch(db, "2026-09", { 1: "100.00", 2: "80.00", 3: "70.00", 4: "60.00" });
});

afterAll(async () => {
  await t?.drop();
});

describe("a Wise file", () => {
  it("[finance] keeps its USD total and its total in the payout currency apart, as its items do", async () => {
    const made = await createPaymentFiles(
      db,
      { gameId: GAME, batchId, method: "wise", eurRate: "0.92", rateSource: "ECB 2026-10-01" },
      web(preparer),
    );
    expect(made.inPayment).toBe(4);
    const files = await db
      .selectFrom("payment_file")
      .select(["id", "currency", "total_usd", "total_amount"])
      .where("batch_id", "=", batchId)
      .orderBy("currency")
      .execute();
    expect(files.map((f) => [f.currency, f.total_usd, f.total_amount])).toEqual([
      ["EUR", "130.00", "119.60"],
      ["USD", "180.00", "180.00"],
    ]);
    const eurItems = await db
      .selectFrom("payment_file_item")
      .select(["amount_usd", "amount_currency"])
      .where("file_id", "=", files[0]?.id ?? "")
      .orderBy("amount_usd")
      .execute();
    expect(eurItems).toEqual([
      { amount_usd: "60.00", amount_currency: "55.20" },
      { amount_usd: "70.00", amount_currency: "64.40" },
    ]);
    // What each row sent: Wise passes on at most 10 characters of a USD reference, 35 of a EUR one.
    const sent = await db
      .selectFrom("payment_file_item as i")
      .innerJoin("payout_statement as s", "s.id", "i.statement_id")
      .select(["s.recipient_player_id", "s.provider_reference", "i.reference", "i.currency"])
      .where("s.batch_id", "=", batchId)
      .execute();
    for (const s of sent) refs.set(Number(s.recipient_player_id), s.reference);
    for (const s of sent) {
      if (s.currency === "USD") {
        expect(s.reference).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
        expect(s.provider_reference?.split("-").at(-1)?.startsWith(s.reference)).toBe(true);
      } else expect(s.reference).toBe(s.provider_reference);
    }
    const csv = await Promise.all(
      files.map(async (f) => (await downloadPaymentFile(db, { gameId: GAME, fileId: f.id }, web(approver))).content),
    );
    const usdRows = parse(csv[1] ?? "", { columns: true }) as Record<string, string>[];
    expect(usdRows.map((r) => r.paymentReference).sort()).toEqual([refs.get(1), refs.get(2)].sort());
  });
});

describe("Wise results", () => {
  it("[finance] a USD target amount after Wise's fee is what was sent; one that is not is a mismatch", async () => {
    const text = wiseResults(
      ["id", "status", "targetValue", "targetCurrency", "fee"],
      [
        [1, "9001", "outgoing_payment_sent", "99.59", "USD", "0.41"],
        [2, "9002", "outgoing_payment_sent", "79.00", "USD", "0.41"],
      ],
    );
    const out = await importResults(db, { gameId: GAME, batchId, format: "wise", text, dryRun: true }, web(approver));
    expect(out.counts).toMatchObject({ pay: 1, amount_mismatch: 1 });
    const lines = out.plan.lines.map((l) => [l.reference, l.verdict, l.expectedAmount]);
    expect(lines).toEqual([
      [refs.get(1), "pay", "100.00"],
      [refs.get(2), "amount_mismatch", "80.00"],
    ]);
  });

  it("[finance] a USD source amount is the amount sent itself: one short is a mismatch, whatever the fee", async () => {
    const text = wiseResults(
      ["id", "status", "sourceValue", "sourceCurrency", "fee"],
      [
        [1, "9011", "outgoing_payment_sent", "99.59", "USD", "0.41"],
        [2, "9012", "outgoing_payment_sent", "80.00", "", "0.41"],
      ],
    );
    const out = await importResults(db, { gameId: GAME, batchId, format: "wise", text, dryRun: true }, web(approver));
    expect(out.plan.lines.map((l) => [l.reference, l.verdict, l.amount, l.currency, l.expectedAmount])).toEqual([
      [refs.get(1), "amount_mismatch", "99.59", "USD", "100.00"],
      [refs.get(2), "pay", "80.00", "USD", "80.00"],
    ]);
  });

  it("[finance] a EUR payment is checked on its USD source side, not on the amount Wise converted", async () => {
    const text = wiseResults(
      ["id", "status", "sourceValue", "sourceCurrency", "targetValue", "targetCurrency", "fee"],
      [
        [3, "9003", "outgoing_payment_sent", "70.00", "USD", "63.99", "EUR", "0.45"],
        [4, "9004", "outgoing_payment_sent", "", "", "54.80", "EUR", ""],
      ],
    );
    const out = await importResults(db, { gameId: GAME, batchId, format: "wise", text, dryRun: false }, web(approver));
    expect(out.counts).toMatchObject({ pay: 2, amount_mismatch: 0 });
    expect(out.plan.lines.map((l) => [l.amount, l.currency, l.expectedAmount])).toEqual([
      ["70.00", "USD", "70.00"],
      ["54.80", "EUR", null],
    ]);
    expect(await statesOf(db, batchId)).toMatchObject({ 3: "paid", 4: "paid" });
  });

  it("[finance] a EUR payment's amount with no currency given is not compared with the USD sent", async () => {
    const text = wiseResults(["id", "status", "targetValue"], [[4, "9004", "outgoing_payment_sent", "54.80"]]);
    const out = await importResults(db, { gameId: GAME, batchId, format: "wise", text, dryRun: true }, web(approver));
    expect(out.plan.lines.map((l) => [l.verdict, l.expectedAmount])).toEqual([["already_applied", null]]);
  });
});
