import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { cancelPaymentFileFlow } from "@/lib/payments/file-access";
import { createPaymentFiles } from "@/lib/payments/files";
import { applyPlan } from "@/lib/payments/apply-results";
import { applyResults, importResults, planResults } from "@/lib/payments/results";
import { returnPayment } from "@/lib/payments/returns";
import { markStatementsPaid } from "@/lib/payouts/batch-approval";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { GAME, web } from "../payouts/fixtures";
import { approvedBatch, approver, preparer, setUpPaymentsDatabase } from "./support";

/**
 * A provider's report read again later may speak of an earlier payment of a statement. Against real PostgreSQL: a
 * return recorded by hand, then a payment anew, then the first file's report listing that return again; and results
 * planned from one file applied after the statement went into another.
 */

let db: Db;
let batchId: string;
const third = { id: "u-third", email: "third@payout-desk.test" };

async function statementOf(recipient: number, batch = batchId) {
  return db
    .selectFrom("payout_statement")
    .select(["id", "state", "provider_reference", "payment_file_id", "payment_reference", "state_changed_at"])
    .where("batch_id", "=", batch)
    .where("recipient_player_id", "=", String(recipient))
    .executeTakeFirstOrThrow();
}

/** The reference a file sent for a recipient's statement (each filing has its own). */
async function sentIn(fileId: string, recipient: number, batch = batchId): Promise<string> {
  const row = await db
    .selectFrom("payment_file_item")
    .select("reference")
    .where("file_id", "=", fileId)
    .where("statement_id", "=", (await statementOf(recipient, batch)).id)
    .executeTakeFirstOrThrow();
  return row.reference;
}

/** PayPal's report of a file: recipient, transaction id, status, amount. */
async function report(fileId: string, rows: [number, string, string, string][], batch = batchId): Promise<string> {
  const lines: string[] = [];
  for (const [who, txn, status, amount] of rows)
    lines.push(`${await sentIn(fileId, who, batch)},${txn},${status},${amount},USD,0.25,`);
  return ["Customer ID,Transaction ID,Status,Amount,Currency,Fee,Reason", ...lines].join("\r\n");
}

const paypalFile = async (batch: string) =>
  (await createPaymentFiles(db, { gameId: GAME, batchId: batch, method: "paypal" }, web(preparer))).files[0]?.id ?? "";

const overrideReturned = (recipientPlayerId = 1, batch = batchId) =>
  overrideFlag(
    db,
    { gameId: GAME, batchId: batch, flag: "payment_returned", recipientPlayerId, reason: "checked with the recipient" },
    web(approver),
  );

const apply = (text: string, batch = batchId) =>
  importResults(db, { gameId: GAME, batchId: batch, format: "paypal", text, dryRun: false }, web(approver));

setUpPaymentsDatabase(
  (database) => {
    db = database;
  },
  async () => {
    batchId = await approvedBatch(db, "2026-09", { 1: "100.00", 3: "70.00" });
  },
);

describe("a report read again after a statement was paid anew", () => {
  it("[finance] does not undo the new payment with a return recorded by hand before it", async () => {
    const fileA = await paypalFile(batchId);
    expect((await apply(await report(fileA, [[1, "TX-1", "SUCCESS", "-100.00"]]))).applied.paid).toBe(1);
    // PayPal sent it back; a second person records that by hand before the provider's report of it is read.
    const first = await statementOf(1);
    await returnPayment(db, { gameId: GAME, statementId: first.id, reason: "PayPal says it came back" }, web(third));
    expect((await statementOf(1)).state).toBe("returned");

    // Paid anew through a second file, to the same details (checked with the recipient).
    await overrideReturned();
    const fileB = await paypalFile(batchId);
    expect(await sentIn(fileB, 1)).not.toBe(await sentIn(fileA, 1));
    expect((await apply(await report(fileB, [[1, "TX-2", "SUCCESS", "-100.00"]]))).applied.paid).toBe(1);
    expect(await statementOf(1)).toMatchObject({ state: "paid", payment_reference: "TX-2" });

    // A return asked from a page drawn while the first payment stood undoes nothing: the statement was paid again.
    const shownFirst = { statementId: first.id, paidShownAt: first.state_changed_at.toISOString() };
    await expect(
      returnPayment(db, { gameId: GAME, ...shownFirst, reason: "PayPal says it came back" }, web(approver)),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/^The statement was paid again since this page was drawn \(now as TX-2 on /),
    });
    expect((await statementOf(1)).state).toBe("paid");

    // The first file's report, read now, lists the return recorded by hand: it is not applied to the new payment.
    const earlier = await report(fileA, [[1, "TX-1R", "RETURNED", "-100.00"]]);
    const again = await apply(earlier);
    expect(again.applied.returned).toBe(0);
    expect(again.plan.lines.map((l) => [l.verdict, l.note])).toEqual([
      ["not_applicable", expect.stringMatching(/earlier payment of this statement came back \(recorded by hand\)/)],
    ]);
    expect((await statementOf(1)).state).toBe("paid");
    // Applying nothing, the import is audited all the same: who, which report, and the line listed.
    const audited = await db
      .selectFrom("audit_log")
      .select(["actor_email", "detail"])
      .where("action", "=", "payouts.results.import")
      .where("idempotency_key", "=", again.sha256)
      .execute();
    expect(audited).toHaveLength(1);
    expect(audited[0]?.actor_email).toBe(approver.email);
    expect(audited[0]?.detail).toMatchObject({
      sha256: again.sha256,
      counts: { not_applicable: 1 },
      applied: { paid: 0, rejected: 0, returned: 0, pending: 0 },
      listed: [{ reference: await sentIn(fileA, 1), verdict: "not_applicable", transactionId: "TX-1R" }],
    });

    // A return naming the payment now recorded undoes it.
    const named = await apply(await report(fileB, [[1, "TX-2", "RETURNED", "-100.00"]]));
    expect(named.applied.returned).toBe(1);
    expect((await statementOf(1)).state).toBe("returned");
  });
});

describe("results planned from one file", () => {
  it("[finance] are refused once the statement went into another file before they were applied", async () => {
    // Recipient 1 is owed again: a file takes it, and results of that file are planned.
    await overrideReturned();
    const fileA = await paypalFile(batchId);
    const text = await report(fileA, [[1, "TX-3", "SUCCESS", "-100.00"]]);
    const plan = await planResults(db, { gameId: GAME, batchId, format: "paypal", text });
    expect(plan.lines.map((l) => [l.verdict, l.fileId])).toEqual([["pay", fileA]]);

    // Meanwhile that file is cancelled and the statement goes into a new one.
    await cancelPaymentFileFlow(db, { gameId: GAME, fileId: fileA, reason: "wrong execution date" }, web(preparer));
    const fileB = await paypalFile(batchId);
    expect((await statementOf(1)).payment_file_id).toBe(fileB);

    await expect(applyPlan(db, { gameId: GAME, batchId, plan }, web(approver))).rejects.toThrow(
      /moved to another payment file since the results were read/,
    );
    expect(await statementOf(1)).toMatchObject({ state: "in_payment", payment_file_id: fileB });
  });
});

describe("money back for an earlier filing, or before any payment was reported", () => {
  let october: string;
  let first: string;
  const returnsOf = async (recipient: number) =>
    db
      .selectFrom("payment_return")
      .select(["kind", "amount_usd"])
      .where("statement_id", "=", (await statementOf(recipient, october)).id)
      .execute();

  beforeAll(async () => {
    october = await approvedBatch(db, "2026-10", { 3: "70.00", 4: "40.00" });
    first = await paypalFile(october);
  });

  it("[finance] a refund of a rejected first filing does not undo the payment a later file made", async () => {
    const failed = await apply(await report(first, [[3, "TX-31", "FAILED", "-70.00"]], october), october);
    expect(failed.applied.rejected).toBe(1);
    await overrideReturned(3, october);
    const second = await paypalFile(october);
    const paid = await apply(await report(second, [[3, "TX-32", "SUCCESS", "-70.00"]], october), october);
    expect(paid.applied.paid).toBe(1);

    // The provider's later export of the first file shows that cancelled transfer refunded to the sender.
    const late = await apply(await report(first, [[3, "TX-31", "REFUNDED", "-70.00"]], october), october);
    expect(late.applied.returned).toBe(0);
    expect(late.plan.lines.map((l) => [l.verdict, l.note])).toEqual([
      ["not_applicable", expect.stringMatching(/recorded on the statement \(TX-32\) was not made by this file/)],
    ]);
    expect(await statementOf(3, october)).toMatchObject({ state: "paid", payment_reference: "TX-32" });
    expect((await returnsOf(3)).map((r) => r.kind)).toEqual(["rejected"]);
  });

  it("[finance] money back for an item never reported paid frees the statement, as a rejection", async () => {
    const back = await apply(await report(first, [[4, "TX-41", "RETURNED", "-40.00"]], october), october);
    expect(back.plan.lines.map((l) => [l.verdict, l.note])).toEqual([
      ["reject", expect.stringMatching(/^returned before it was reported paid: nothing was paid, owed again/)],
    ]);
    expect(back.applied).toMatchObject({ rejected: 1, returned: 0 });
    expect(await statementOf(4, october)).toMatchObject({ state: "approved", payment_file_id: null });
    expect(await returnsOf(4)).toEqual([{ kind: "rejected", amount_usd: "40.00" }]);
  });

  it("[finance] results planned for a file cancelled before they are applied are refused", async () => {
    await overrideReturned(4, october);
    const file = await paypalFile(october);
    const text = await report(file, [[4, "TX-44", "SUCCESS", "-40.00"]], october);
    const plan = await planResults(db, { gameId: GAME, batchId: october, format: "paypal", text });
    expect(plan.lines.map((l) => l.verdict)).toEqual(["pay"]);
    await cancelPaymentFileFlow(db, { gameId: GAME, fileId: file, reason: "wrong execution date" }, web(preparer));

    await expect(applyPlan(db, { gameId: GAME, batchId: october, plan }, web(approver))).rejects.toThrow(
      /1 statement of these results has changed since the results were read/,
    );
    expect(await statementOf(4, october)).toMatchObject({ state: "approved", payment_reference: null });
  });
});

describe("a payment and its return in one report, and a return of a payment recorded by hand", () => {
  let november: string;
  let file: string;
  beforeAll(async () => {
    november = await approvedBatch(db, "2026-11", { 3: "60.00", 5: "20.00" }, [[3, "payment_returned"]]);
  });

  it("[finance] records the payment first and lists the return, which the next import applies", async () => {
    file = await paypalFile(november);
    const both = await report(
      file,
      [
        [5, "TX-51", "SUCCESS", "-20.00"],
        [5, "TX-51", "RETURNED", "-20.00"],
      ],
      november,
    );
    const first = await apply(both, november);
    expect(first.plan.lines.map((l) => l.verdict)).toEqual(["pay", "not_applicable"]);
    expect(first.applied).toMatchObject({ paid: 1, rejected: 0, returned: 0 });
    expect((await statementOf(5, november)).state).toBe("paid");
    const again = await apply(both, november);
    expect(again.applied).toMatchObject({ paid: 0, returned: 1 });
    expect((await statementOf(5, november)).state).toBe("returned");
  });

  it("[finance] undoes a payment recorded by hand when the return names its transaction id", async () => {
    // Recipient 3, in the same file: the file said rejected, yet the provider paid; finance records it by hand.
    await apply(await report(file, [[3, "TX-31N", "FAILED", "-60.00"]], november), november);
    await markStatementsPaid(
      db,
      {
        gameId: GAME,
        batchId: november,
        ids: [(await statementOf(3, november)).id],
        paidOn: new Date().toISOString().slice(0, 10),
        method: "paypal",
        reference: "TX-31N",
      },
      web(third),
    );
    const back = await apply(await report(file, [[3, "TX-31N", "RETURNED", "-60.00"]], november), november);
    expect(back.applied.returned).toBe(1);
    expect((await statementOf(3, november)).state).toBe("returned");
  });
});

describe("money back for a first filing after a payment by hand was recorded as returned", () => {
  it("[finance] frees the statement as a rejection: that filing's reference was sent in this file alone", async () => {
    const december = await approvedBatch(db, "2026-12", { 4: "25.00" }, [[4, "payment_returned"]]);
    const statement = await statementOf(4, december);
    // Marked paid by mistake, then recorded as returned by a second person; paid next through a file.
    await markStatementsPaid(
      db,
      {
        gameId: GAME,
        batchId: december,
        ids: [statement.id],
        paidOn: "2026-12-01",
        method: "paypal",
        reference: "MISTAKE-4",
      },
      web(preparer),
    );
    await returnPayment(
      db,
      { gameId: GAME, statementId: statement.id, reason: "never sent: marked by mistake" },
      web(third),
    );
    await overrideReturned(4, december);
    const file = await paypalFile(december);
    // The recipient never claimed it: PayPal gives the money back.
    const back = await apply(await report(file, [[4, "TX-4D", "RETURNED", "-25.00"]], december), december);
    expect(back.plan.lines.map((l) => [l.verdict, l.note])).toEqual([
      ["reject", expect.stringMatching(/^returned before it was reported paid: nothing was paid, owed again/)],
    ]);
    expect(back.applied).toMatchObject({ rejected: 1, returned: 0 });
    expect(await statementOf(4, december)).toMatchObject({ state: "approved", payment_file_id: null });
  });
});

describe("a return planned before the statement was paid anew by hand", () => {
  it("[finance] is refused when applied, leaving the new payment recorded and saying what was applied", async () => {
    // Recipient 5's earlier payment came back (above); checked with them, they are paid again, with recipient 4.
    const december = await approvedBatch(db, "2025-12", { 4: "20.00", 5: "30.00" }, [
      [4, "payment_returned"],
      [5, "payment_returned"],
    ]);
    const fileA = await paypalFile(december);
    expect(
      (await apply(await report(fileA, [[5, "TX-A", "SUCCESS", "-30.00"]], december), december)).applied.paid,
    ).toBe(1);
    // The provider's next report, of recipient 4's payment and of 5's return, is read (the return undoes TX-A)…
    const text = await report(
      fileA,
      [
        [4, "TX-B", "SUCCESS", "-20.00"],
        [5, "TX-AR", "RETURNED", "-30.00"],
      ],
      december,
    );
    const plan = await planResults(db, { gameId: GAME, batchId: december, format: "paypal", text });
    expect(plan.lines.map((l) => l.verdict)).toEqual(["pay", "return"]);
    // …while someone records that return by hand and another pays the recipient again by bank.
    const statement = await statementOf(5, december);
    await returnPayment(db, { gameId: GAME, statementId: statement.id, reason: "PayPal sent it back" }, web(third));
    await markStatementsPaid(
      db,
      {
        gameId: GAME,
        batchId: december,
        ids: [statement.id],
        paidOn: new Date().toISOString().slice(0, 10),
        method: "bank_transfer",
        reference: "WIRE-5-AGAIN",
      },
      web(approver),
    );
    const stopped = /^1 payment recorded as paid before this stopped: The payment recorded on 1 statement changed /;
    await expect(
      applyResults(db, { gameId: GAME, batchId: december, format: "paypal" }, plan, web(approver)),
    ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(stopped) });
    expect(await statementOf(5, december)).toMatchObject({ state: "paid", payment_reference: "WIRE-5-AGAIN" });
    expect(await statementOf(4, december)).toMatchObject({ state: "paid", payment_reference: "TX-B" });
    // The import that stopped partway is audited with what it applied and why it stopped; file A, settled whole by
    // its payment step, is completed.
    const audited = await db
      .selectFrom("audit_log")
      .select(["outcome", "detail"])
      .where("action", "=", "payouts.results.import")
      .where("idempotency_key", "=", plan.sha256)
      .execute();
    expect(audited).toEqual([
      {
        outcome: "stopped_partway",
        detail: expect.objectContaining({
          applied: { paid: 1, rejected: 0, returned: 0, pending: 0 },
          stoppedBy: expect.stringMatching(stopped),
        }),
      },
    ]);
    const fileStatus = await db.selectFrom("payment_file").select("status").where("id", "=", fileA).executeTakeFirst();
    expect(fileStatus?.status).toBe("completed");
  });
});

describe("a return reported again after the statement was paid anew by hand", () => {
  it("[finance] does not undo the payment by hand recorded under the first payment's reference", async () => {
    const august = await approvedBatch(db, "2026-08", { 5: "40.00" }, [[5, "payment_returned"]]);
    const file = await paypalFile(august);
    const said = (rows: [number, string, string, string][]) => report(file, rows, august).then((t) => apply(t, august));
    expect((await said([[5, "TX-J51", "SUCCESS", "-40.00"]])).applied.paid).toBe(1);
    expect((await said([[5, "TX-J51R", "RETURNED", "-40.00"]])).applied.returned).toBe(1);
    // Paid again from the bank, recorded by hand under the reference the first payment had.
    await overrideReturned(5, august);
    const ids = [(await statementOf(5, august)).id];
    const paidOn = new Date().toISOString().slice(0, 10);
    const byHand = { gameId: GAME, batchId: august, ids, paidOn, method: "paypal", reference: "TX-J51" } as const;
    await markStatementsPaid(db, byHand, web(third));
    expect(await statementOf(5, august)).toMatchObject({ state: "paid", payment_reference: "TX-J51" });
    // The file's report lists the first payment's return again, under another id: the payment by hand stands.
    const again = await said([[5, "TX-J51R2", "RETURNED", "-40.00"]]);
    expect(again.applied.returned).toBe(0);
    expect(again.plan.lines.map((l) => l.verdict)).toEqual(["not_applicable"]);
    expect((await statementOf(5, august)).state).toBe("paid");
  });
});
