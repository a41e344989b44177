import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { downloadPaymentFile, cancelPaymentFileFlow } from "@/lib/payments/file-access";
import { createPaymentFiles } from "@/lib/payments/files";
import { convertUsd } from "@/lib/payments/fx";
import { importResults } from "@/lib/payments/results";
import { returnPayment } from "@/lib/payments/returns";
import { markStatementsPaid } from "@/lib/payouts/batch-approval";
import { firstPaidOn } from "@/lib/payouts/paid-on";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { checkLedgerInvariant } from "@/lib/payouts/invariant";
import { listLiability } from "@/lib/payouts/liability";
import { listLedgerEntries } from "@/lib/payouts/ledger";
import { changePayoutDetails, reviewPayoutChange } from "@/lib/profiles/profiles";
import type { TestDatabase } from "../support/db";
import { createProfilesDatabase } from "../profiles/support";
import { GAME, web } from "../payouts/fixtures";
import { approvedBatch, approver, bank, finance, IBAN, paypal, preparer, seedProfiles, statesOf } from "./support";

/**
 * Paying recipients through payment files, against real PostgreSQL: files move statements to in_payment, results pay
 * them or send them back, a returned payment is owed again, and the ledger invariant holds throughout.
 */

let t: TestDatabase;
let db: Db;
let batchId: string;
const third = { id: "u-third", email: "third@payout-desk.test" };
const refs = new Map<number, string>();

async function statementOf(recipient: number, batch = batchId) {
  return db
    .selectFrom("payout_statement")
    .selectAll()
    .where("batch_id", "=", batch)
    .where("recipient_player_id", "=", String(recipient))
    .executeTakeFirstOrThrow();
}

function paypalResults(rows: [number | string, string, string, string][]): string {
  const lines = rows.map(([who, txn, status, amount]) => {
    const ref = typeof who === "number" ? refs.get(who) : who;
    return `${ref},${txn},${status},${amount},USD,0.25,${status === "FAILED" ? "Receiver account locked" : ""}`;
  });
  return ["Customer ID,Transaction ID,Status,Amount,Currency,Fee,Reason", ...lines].join("\r\n");
}

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  db = t.db;
  await seedProfiles(db);
  batchId = await approvedBatch(db, "2026-09", { 1: "100.00", 2: "80.00", 3: "70.00", 4: "60.00", 5: "50.00" });
});

afterAll(async () => {
  await t?.drop();
});

describe("payment files", () => {
  it("[finance] a PayPal file moves the PayPal recipients to in_payment and lists the others", async () => {
    const made = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    expect(made.inPayment).toBe(4);
    expect(made.refused).toEqual([expect.objectContaining({ recipientPlayerId: 2 })]);
    expect(made.files).toHaveLength(1);
    expect(await statesOf(db, batchId)).toEqual({
      1: "in_payment",
      2: "approved",
      3: "in_payment",
      4: "in_payment",
      5: "in_payment",
    });
    for (const id of [1, 3, 4, 5]) {
      const s = await statementOf(id);
      expect(s.payment_file_id).toBe(made.files[0]?.id);
      expect(s.provider_reference).toMatch(/^PAYOUTGAM-202609-/);
      refs.set(id, s.provider_reference ?? "");
    }
    const batch = await db.selectFrom("payout_batch").select("status").where("id", "=", batchId).executeTakeFirst();
    expect(batch?.status).toBe("approved");
    // Still owed: the liability counts a statement in payment as approved and unpaid.
    const owed = await listLiability(db, { gameId: GAME, asOf: new Date() });
    expect(owed.rows.find((r) => r.recipientPlayerId === 1)?.approvedUnpaidUsd).toBe("100.00");
  });

  it("[finance] never puts a statement in two live files", async () => {
    await expect(createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer))).rejects.toThrow(
      /No statement can be paid|No approved statement/,
    );
    const live = await sql<{ n: number }>`select max(c)::int as n from (select count(*) as c from payment_file_item
      where file_status = 'live' group by statement_id) x`.execute(db);
    expect(live.rows[0]?.n).toBe(1);
  });

  it("[finance] a SEPA file needs the EUR rate and stores it with each converted amount", async () => {
    await expect(createPaymentFiles(db, { gameId: GAME, batchId, method: "sepa" }, web(preparer))).rejects.toThrow(
      /rate/,
    );
    const made = await createPaymentFiles(
      db,
      {
        gameId: GAME,
        batchId,
        method: "sepa",
        eurRate: "0.92345",
        rateSource: "ECB 2026-10-01",
        executionDate: "2026-10-02",
      },
      web(preparer),
    );
    const file = await db
      .selectFrom("payment_file")
      .selectAll()
      .where("id", "=", made.files[0]?.id ?? "")
      .executeTakeFirstOrThrow();
    expect(file).toMatchObject({
      method: "pain001",
      currency: "EUR",
      eur_rate: "0.92345",
      rate_source: "ECB 2026-10-01",
    });
    const item = await db
      .selectFrom("payment_file_item")
      .selectAll()
      .where("file_id", "=", file.id)
      .executeTakeFirstOrThrow();
    expect(item.amount_currency).toBe(convertUsd("80.00", "0.92345"));
    expect(item.amount_usd).toBe("80.00");
  });

  it("[finance] a download gives the same bytes and SHA-256 each time and is audited", async () => {
    const file = await db
      .selectFrom("payment_file")
      .select(["id", "sha256"])
      .where("method", "=", "pain001")
      .executeTakeFirstOrThrow();
    const a = await downloadPaymentFile(db, { gameId: GAME, fileId: file.id }, web(approver));
    const b = await downloadPaymentFile(db, { gameId: GAME, fileId: file.id }, web(preparer));
    expect(a.sha256).toBe(file.sha256);
    expect(b.content).toBe(a.content);
    expect(a.content).toContain(IBAN);
    const audits = await db
      .selectFrom("audit_log")
      .select(["detail", "actor_email"])
      .where("action", "=", "payouts.payment_file.download")
      .execute();
    expect(audits).toHaveLength(2);
    expect(JSON.stringify(audits[0]?.detail)).toContain(file.sha256);
  });

  it("[finance] cancelling a file returns its statements to approved", async () => {
    const file = await db
      .selectFrom("payment_file")
      .select("id")
      .where("method", "=", "pain001")
      .executeTakeFirstOrThrow();
    const out = await cancelPaymentFileFlow(db, { gameId: GAME, fileId: file.id, reason: "wrong rate" }, web(preparer));
    expect(out.returnedToApproved).toBe(1);
    // Its statements are payable again: the cancelled file is no longer handed out for upload.
    await expect(downloadPaymentFile(db, { gameId: GAME, fileId: file.id }, web(approver))).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("was cancelled"),
    });
    expect((await statementOf(2)).state).toBe("approved");
    expect((await statementOf(2)).payment_file_id).toBeNull();
    const again = await createPaymentFiles(
      db,
      { gameId: GAME, batchId, method: "sepa", eurRate: "0.93", rateSource: "ECB", executionDate: "2026-10-03" },
      web(preparer),
    );
    expect(again.inPayment).toBe(1);
  });
});

describe("results", () => {
  const first = () =>
    paypalResults([
      [1, "TX-1", "SUCCESS", "-100.00"],
      [3, "TX-3", "FAILED", "-70.00"],
      [4, "TX-4", "SUCCESS", "-60.00"],
      [5, "TX-5", "SUCCESS", "-55.004"],
      ["PAYOUTGAM-202609-ZZZZZZZZZZZZ", "TX-9", "SUCCESS", "-1.00"],
    ]);

  it("[finance] a dry run lists successes, rejections, unknown references, mismatches; changes nothing", async () => {
    const out = await importResults(
      db,
      { gameId: GAME, batchId, format: "paypal", text: first(), dryRun: true },
      web(approver),
    );
    expect(out.counts).toMatchObject({ pay: 2, reject: 1, unknown_reference: 1, amount_mismatch: 1 });
    expect((await statementOf(1)).state).toBe("in_payment");
    expect(await db.selectFrom("payment_result").select("id").execute()).toHaveLength(0);
    expect(out.plan.lines.map((l) => l.note)).toContain("amount 55.004 differs from the 50.00 sent"); // as read
  });

  it("[finance] applying pays, rejects with the reason and leaves the mismatch in payment", async () => {
    const { created_at: made } = await db
      .selectFrom("payment_file")
      .select("created_at")
      .where("batch_id", "=", batchId)
      .where("method", "=", "paypal")
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    // The earliest day allowed: the file's day less one (for a person whose day is behind UTC's); a day before is
    // a date typed wrong, refused on the field with nothing applied.
    const given = firstPaidOn(made);
    const dayBefore = new Date(Date.parse(`${given}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    await expect(
      importResults(
        db,
        { gameId: GAME, batchId, format: "paypal", text: first(), dryRun: false, paidOn: dayBefore },
        web(approver),
      ),
    ).rejects.toMatchObject({
      code: "INVALID_INPUT",
      field: "paidOn",
      message: /^is before its payment file was made/,
    });
    expect(await db.selectFrom("payment_result").select("id").execute()).toHaveLength(0);
    const out = await importResults(
      db,
      { gameId: GAME, batchId, format: "paypal", text: first(), dryRun: false, paidOn: given },
      web(approver),
    );
    expect(out.applied).toMatchObject({ paid: 2, rejected: 1 });
    // Paid on the day the importer gave (the day the money left), not the day of the import.
    expect(out.plan.lines.filter((l) => l.verdict === "pay").map((l) => l.paidOn)).toEqual([given, given]);
    const paidOn = await db
      .selectFrom("payout_statement")
      .select(sql<string>`to_char(paid_on, 'YYYY-MM-DD')`.as("day"))
      .where("batch_id", "=", batchId)
      .where("state", "=", "paid")
      .execute();
    expect(paidOn.map((r) => r.day)).toEqual([given, given]);
    expect(await statesOf(db, batchId)).toMatchObject({ 1: "paid", 3: "approved", 4: "paid", 5: "in_payment" });
    expect((await statementOf(1)).payment_reference).toBe("TX-1");
    const back = await db.selectFrom("payment_return").selectAll().executeTakeFirstOrThrow();
    expect(back).toMatchObject({ kind: "rejected", reason: "Receiver account locked", amount_usd: "70.00" });
    const fee = await db
      .selectFrom("payment_result")
      .select("fee")
      .where("provider_transaction_id", "=", "TX-1")
      .executeTakeFirst();
    expect(fee?.fee).toBe("0.25");
  });

  it("[finance] importing the same file twice changes nothing", async () => {
    const before = await db.selectFrom("payout_statement_event").select("id").execute();
    const out = await importResults(
      db,
      { gameId: GAME, batchId, format: "paypal", text: first(), dryRun: false },
      web(approver),
    );
    expect(out.applied).toEqual({ paid: 0, rejected: 0, returned: 0, pending: 0 });
    expect(out.counts.already_applied).toBe(3);
    expect(await db.selectFrom("payout_statement_event").select("id").execute()).toHaveLength(before.length);
  });

  it("[finance] a rejected recipient is not put in a new file until their details are updated", async () => {
    await expect(createPaymentFiles(db, { gameId: GAME, batchId, method: "generic" }, web(preparer))).rejects.toThrow(
      /recipient 3: a payment to these details came back/,
    );
    const change = await changePayoutDetails(
      db,
      { gameId: GAME, playerId: 3, input: paypal("new3@example.com") },
      finance,
    );
    if (change.outcome !== "pending" || !change.changeId) throw new Error("a change of details waits for review");
    await reviewPayoutChange(
      db,
      { gameId: GAME, playerId: 3, changeId: change.changeId, decision: "approve" },
      { actor: approver, role: "finance", via: "web" },
    );
    // New details are themselves a change since approval: confirmed with the recipient before they are paid.
    await expect(createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer))).rejects.toThrow(
      /recipient 3: the payout details changed after approval/,
    );
    await overrideFlag(
      db,
      { gameId: GAME, batchId, flag: "payout_details_changed", recipientPlayerId: 3, reason: "new email confirmed" },
      web(third),
    );
    const made = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    expect(made.refused.map((r) => r.recipientPlayerId)).toEqual([]);
    expect((await statementOf(3)).state).toBe("in_payment");
  });

  it("[finance] a payment returned after it was paid is owed again and on the ledger", async () => {
    const text = paypalResults([[4, "TX-4R", "RETURNED", "-60.00"]]);
    const out = await importResults(
      db,
      { gameId: GAME, batchId, format: "paypal", text, dryRun: false },
      web(approver),
    );
    expect(out.applied.returned).toBe(1);
    expect((await statementOf(4)).state).toBe("returned");
    const entries = await listLedgerEntries(db, { gameId: GAME, recipientPlayerId: 4 });
    expect(entries.map((e) => [e.kind, e.amountUsd])).toEqual([
      ["accrual", "60.00"],
      ["payment", "-60.00"],
      ["payment_returned", "60.00"],
    ]);
    expect((await checkLedgerInvariant(db, { gameId: GAME })).violations).toEqual([]);
  });
});

describe("paid by hand", () => {
  it("[finance] undoing a wrong paid needs a written reason and a second person", async () => {
    await markStatementsPaid(
      db,
      {
        gameId: GAME,
        batchId,
        ids: [(await statementOf(4)).id],
        paidOn: "2026-10-05",
        method: "bank_transfer",
        reference: "MANUAL-4",
      },
      web(third),
    );
    expect((await statementOf(4)).state).toBe("paid");
    // Paid by bank transfer, a recipient paid by PayPal: no account of theirs is named as the one paid.
    expect((await statementOf(4)).paid_to_masked).toBeNull();
    const id = (await statementOf(4)).id;
    await expect(returnPayment(db, { gameId: GAME, statementId: id, reason: "no" }, web(approver))).rejects.toThrow(
      /at least 5/,
    );
    await expect(
      returnPayment(db, { gameId: GAME, statementId: id, reason: "paid the wrong account" }, web(third)),
    ).rejects.toThrow(/Two-person rule/);
    await returnPayment(db, { gameId: GAME, statementId: id, reason: "paid the wrong account" }, web(approver));
    expect((await statementOf(4)).state).toBe("returned");
  });
});

describe("ledger across months", () => {
  it("[finance] a return then a re-payment keeps paid + carried = net attributed", async () => {
    // Re-payment of the returned statement, by hand.
    const s4 = await statementOf(4);
    // A year typed wrong: before the window began, refused on the field.
    await expect(
      markStatementsPaid(
        db,
        { gameId: GAME, batchId, ids: [s4.id], paidOn: "2025-10-06", method: "paypal", reference: "MANUAL-4B" },
        web(preparer),
      ),
    ).rejects.toMatchObject({ field: "paidOn", message: "is before the window began on 2026-09-01" });
    expect((await statementOf(4)).state).toBe("returned");
    await markStatementsPaid(
      db,
      { gameId: GAME, batchId, ids: [s4.id], paidOn: "2026-10-06", method: "paypal", reference: "MANUAL-4B" },
      web(preparer),
    );
    // Paid by hand by the profile's method: its account, masked, is kept as the one paid ("p4": shown as none).
    expect((await statementOf(4)).paid_to_masked).toBe("PayPal •••@example.com");
    const month2 = await approvedBatch(db, "2026-10", { 1: "40.00", 4: "30.00" }, [[4, "payment_returned"]]);
    await createPaymentFiles(db, { gameId: GAME, batchId: month2, method: "paypal" }, web(preparer));
    const text = paypalResults([[1, "TX-10-1", "SUCCESS", "-40.00"]]).replace(
      refs.get(1) ?? "",
      (await statementOf(1, month2)).provider_reference ?? "",
    );
    await importResults(db, { gameId: GAME, batchId: month2, format: "paypal", text, dryRun: false }, web(approver));
    const report = await checkLedgerInvariant(db, { gameId: GAME });
    expect(report.violations).toEqual([]);
    const four = report.rows.find((r) => r.recipientPlayerId === 4);
    expect(four).toMatchObject({ paidUsd: "60.00", netAttributedUsd: "60.00" });
    const entries = await listLedgerEntries(db, { gameId: GAME, recipientPlayerId: 4 });
    const sept = entries.filter((e) => e.batchId === batchId).map((e) => e.kind);
    expect(sept).toEqual(["accrual", "payment", "payment_returned", "payment", "payment_returned", "payment"]);
    // Each payment keeps the entry id it had before it came back (the journal number follows from it).
    const payments = entries.filter((e) => e.batchId === batchId && e.kind === "payment").map((e) => e.entryId);
    expect(payments).toEqual([`${s4.id}:payment`, `${s4.id}:payment:2`, `${s4.id}:payment:3`]);
    const owed = entries
      .filter((e) => e.batchId === batchId)
      .reduce((sum, e) => sum + Math.round(Number(e.amountUsd) * 100), 0);
    expect(owed).toBe(0);
  });

  it("the invariant notices a statement in payment outside any live file", async () => {
    const s = await statementOf(5);
    expect(s.state).toBe("in_payment");
    await sql`update payment_file set status = 'completed' where id = ${s.payment_file_id}`.execute(db);
    const report = await checkLedgerInvariant(db, { gameId: GAME, recipientPlayerId: 5 });
    expect(report.violations[0]?.problems.join(" ")).toMatch(/in 0 live payment files/);
    await sql`update payment_file set status = 'live' where id = ${s.payment_file_id}`.execute(db);
  });
});

describe("bank details at rest", () => {
  it("no table holds an IBAN in plain text", async () => {
    const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(db);
    for (const { table_name } of tables.rows) {
      const { rows } = await sql<{ row: string }>`select t::text as row from ${sql.table(table_name)} t`.execute(db);
      for (const r of rows) expect(r.row, table_name).not.toContain(IBAN);
    }
    expect(JSON.stringify(bank())).toContain(IBAN);
  });
});
