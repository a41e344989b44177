import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { cancelPaymentFileFlow } from "@/lib/payments/file-access";
import { createPaymentFiles } from "@/lib/payments/files";
import { PAYMENT_REFERENCE_PATTERN } from "@/lib/payments/reference";
import { importResults, listedCount } from "@/lib/payments/results";
import type { ResultFormat } from "@/lib/payments/schemas";
import { markStatementsPaid } from "@/lib/payouts/batch-approval";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { GAME, web } from "../payouts/fixtures";
import { approvedBatch, approver, preparer, setUpPaymentsDatabase } from "./support";

/**
 * Each filing of a statement is sent under a reference of its own, so a provider's results name the file they answer.
 * Against real PostgreSQL: a cancelled file the provider executed after all, a file that replaced it, a rejection
 * without a transaction id from each of two files, and a reference sent in two files (files made before).
 */

let db: Db;
let september: string;

async function statementOf(batchId: string, recipient: number) {
  return db
    .selectFrom("payout_statement")
    .select(["id", "state", "payment_file_id", "payment_reference", "provider_reference"])
    .where("batch_id", "=", batchId)
    .where("recipient_player_id", "=", String(recipient))
    .executeTakeFirstOrThrow();
}

async function sentIn(fileId: string, statementId: string): Promise<string> {
  const row = await db
    .selectFrom("payment_file_item")
    .select("reference")
    .where("file_id", "=", fileId)
    .where("statement_id", "=", statementId)
    .executeTakeFirstOrThrow();
  return row.reference;
}

const paypalFile = async (batchId: string) =>
  (await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer))).files[0]?.id ?? "";

/** PayPal's report of one payment of a file. */
async function paypalReport(fileId: string, recipient: number, txn: string, status: string, amount: string) {
  const reference = await sentIn(fileId, (await statementOf(september, recipient)).id);
  const header = "Customer ID,Transaction ID,Status,Amount,Currency,Fee,Reason";
  return `${header}\r\n${reference},${txn},${status},${amount},USD,0,\r\n`;
}

const importInto = (batchId: string, format: ResultFormat, text: string, dryRun = false) =>
  importResults(db, { gameId: GAME, batchId, format, text, dryRun }, web(approver));

const verdicts = (out: Awaited<ReturnType<typeof importInto>>) => out.plan.lines.map((l) => [l.verdict, l.note]);

setUpPaymentsDatabase(
  (database) => {
    db = database;
  },
  async () => {
    september = await approvedBatch(db, "2026-09", { 1: "100.00", 3: "70.00" });
  },
);

describe("a cancelled file the provider executed after all", () => {
  let fileA: string;

  it("[finance] its payment is listed with what to do, never applied, and known once recorded by hand", async () => {
    fileA = await paypalFile(september);
    await cancelPaymentFileFlow(db, { gameId: GAME, fileId: fileA, reason: "wrong execution date" }, web(preparer));
    const one = await statementOf(september, 1);
    expect(one.state).toBe("approved");

    const text = await paypalReport(fileA, 1, "TX-A1", "SUCCESS", "-100.00");
    const dry = await importInto(september, "paypal", text, true);
    expect(verdicts(dry)).toEqual([
      [
        "cancelled_file",
        expect.stringMatching(/owed again, so a new file would pay it twice: mark .* provider's reference TX-A1$/),
      ],
    ]);
    expect(listedCount(dry.counts)).toBe(1);
    const applied = await importInto(september, "paypal", text);
    expect(applied.applied).toEqual({ paid: 0, rejected: 0, returned: 0, pending: 0 });
    expect((await statementOf(september, 1)).state).toBe("approved");

    await markStatementsPaid(
      db,
      { gameId: GAME, batchId: september, ids: [one.id], paidOn: "2026-10-05", method: "paypal", reference: "TX-A1" },
      web(approver),
    );
    expect(verdicts(await importInto(september, "paypal", text, true))).toEqual([
      ["already_applied", "recorded: the statement was marked paid with this transaction id"],
    ]);
  });

  it("[finance] its payment is not read as that of the file that replaced it", async () => {
    const three = await statementOf(september, 3);
    expect(three.state).toBe("approved");
    const fileB = await paypalFile(september);
    const [first, second] = [await sentIn(fileA, three.id), await sentIn(fileB, three.id)];
    expect(first).toBe(three.provider_reference);
    expect(second).not.toBe(first);
    expect(second).toMatch(PAYMENT_REFERENCE_PATTERN);

    const fromA = await paypalReport(fileA, 3, "TX-A3", "SUCCESS", "-70.00");
    expect(verdicts(await importInto(september, "paypal", fromA))).toEqual([
      ["cancelled_file", expect.stringMatching(/in another payment file now\. Stop that file at the provider/)],
    ]);
    expect(await statementOf(september, 3)).toMatchObject({ state: "in_payment", payment_file_id: fileB });

    const fromB = await paypalReport(fileB, 3, "TX-B3", "SUCCESS", "-70.00");
    expect((await importInto(september, "paypal", fromB)).applied.paid).toBe(1);
    expect(await statementOf(september, 3)).toMatchObject({ state: "paid", payment_reference: "TX-B3" });
    expect(verdicts(await importInto(september, "paypal", fromA, true))).toEqual([
      ["cancelled_file", expect.stringMatching(/paid since: the recipient has been paid twice$/)],
    ]);
  });
});

describe("a rejection without a transaction id", () => {
  async function filed(batchId: string, recipient: number) {
    const statement = await statementOf(batchId, recipient);
    const items = await db
      .selectFrom("payment_file_item as i")
      .innerJoin("payment_file as f", "f.id", "i.file_id")
      .select(["i.file_id", "i.reference"])
      .where("i.statement_id", "=", statement.id)
      .orderBy("f.created_at")
      .execute();
    return { ...statement, items };
  }
  const rejection = (reference: string) => `reference,outcome,reason\r\n${reference},rejected,account closed\r\n`;
  const fileAgain = async (batchId: string, recipientPlayerId: number) => {
    await overrideFlag(
      db,
      { gameId: GAME, batchId, flag: "payment_returned", recipientPlayerId, reason: "new account given" },
      web(approver),
    );
    return paypalFile(batchId);
  };

  it("[finance] from the file that replaced a rejected one is a result of its own", async () => {
    const october = await approvedBatch(db, "2026-10", { 5: "50.00" });
    await paypalFile(october);
    const first = (await filed(october, 5)).items[0]?.reference ?? "";
    expect((await importInto(october, "generic", rejection(first))).applied.rejected).toBe(1);

    expect(await fileAgain(october, 5)).not.toBe("");
    const second = (await filed(october, 5)).items[1]?.reference ?? "";
    expect(second).not.toBe(first);
    // The first file's rejection read again while the second is at the provider: it answers the first file only.
    expect(verdicts(await importInto(october, "generic", rejection(first), true))).toEqual([
      ["already_applied", "imported before"],
    ]);
    expect((await importInto(october, "generic", rejection(second))).applied.rejected).toBe(1);
    expect(await filed(october, 5)).toMatchObject({ state: "approved", payment_file_id: null });
    // Each file's rejection, read again, was imported before.
    for (const reference of [first, second])
      expect(verdicts(await importInto(october, "generic", rejection(reference), true))).toEqual([
        ["already_applied", "imported before"],
      ]);
  });

  it("[finance] from both files in one report: the earlier one's, imported before, hides not the current", async () => {
    const february = await approvedBatch(db, "2027-02", { 5: "60.00" }, [[5, "payment_returned"]]);
    await paypalFile(february);
    const first = (await filed(february, 5)).items[0]?.reference ?? "";
    expect((await importInto(february, "generic", rejection(first))).applied.rejected).toBe(1);
    expect(await fileAgain(february, 5)).not.toBe("");
    const second = (await filed(february, 5)).items[1]?.reference ?? "";
    // A provider's export of every transfer lists the first filing's line before the second's; here the second's twice.
    const line = `${second},rejected,account closed\r\n`;
    expect(verdicts(await importInto(february, "generic", `${rejection(first)}${line}${line}`, true))).toEqual([
      ["already_applied", "imported before"],
      ["reject", expect.stringMatching(/^rejected: owed again/)],
      ["not_applicable", "the same result appears twice in this file"],
    ]);
    const out = await importInto(february, "generic", `${rejection(first)}${line}`);
    expect(out.applied.rejected).toBe(1);
    expect(await filed(february, 5)).toMatchObject({ state: "approved", payment_file_id: null });
  });

  it("[finance] for a reference sent in two files is listed for a person, saying what to do", async () => {
    const november = await approvedBatch(db, "2026-11", { 4: "40.00" });
    await paypalFile(november);
    const first = (await filed(november, 4)).items[0]?.reference ?? "";
    expect((await importInto(november, "generic", rejection(first))).applied.rejected).toBe(1);
    // A file made before each filing had a reference of its own sent the statement's reference again.
    const again = await fileAgain(november, 4);
    await db.updateTable("payment_file_item").set({ reference: first }).where("file_id", "=", again).execute();

    const second = await importInto(november, "generic", rejection(first));
    expect(second.applied.rejected).toBe(0);
    expect(verdicts(second)).toEqual([
      ["not_applicable", expect.stringMatching(/earlier file of this statement.*cancel that file/)],
    ]);
    // Counted with the lines a person must look at: the command line exits 1 on it, the page lists it.
    expect(second.counts.not_applicable).toBe(1);
    expect(await filed(november, 4)).toMatchObject({ state: "in_payment", payment_file_id: again });
  });
});

describe("results of a file cancelled after some of its payments were settled", () => {
  it("[finance] a return of a payment it made is applied as usual", async () => {
    const january = await approvedBatch(db, "2027-01", { 1: "10.00", 3: "30.00" });
    const file = await paypalFile(january);
    const [one, three] = [await statementOf(january, 1), await statementOf(january, 3)];
    const report = async (rows: [string, string, string, string][]) =>
      [
        "Customer ID,Transaction ID,Status,Amount,Currency,Fee,Reason",
        ...(await Promise.all(
          rows.map(async ([id, txn, status, amount]) => {
            return `${await sentIn(file, id)},${txn},${status},${amount},USD,0,`;
          }),
        )),
      ].join("\r\n");
    expect(
      (await importInto(january, "paypal", await report([[one.id, "TX-J1", "SUCCESS", "-10.00"]]))).applied.paid,
    ).toBe(1);
    // PayPal confirmed it will not pay the rest, which goes by bank.
    const cancel = { gameId: GAME, fileId: file, reason: "the rest goes by bank", restUnpaid: "confirmed" as const };
    await cancelPaymentFileFlow(db, cancel, web(preparer));
    expect((await statementOf(january, 3)).state).toBe("approved");

    const later = await importInto(
      january,
      "paypal",
      await report([
        [one.id, "TX-J1", "RETURNED", "-10.00"],
        [three.id, "TX-J3", "SUCCESS", "-30.00"],
      ]),
    );
    expect(later.plan.lines.map((l) => l.verdict)).toEqual(["return", "cancelled_file"]);
    expect(later.applied.returned).toBe(1);
    expect((await statementOf(january, 1)).state).toBe("returned");
  });
});

describe("a reference sent in a cancelled file and in the file that replaced it (files made before)", () => {
  it("[finance] its results are listed for a person: which file they answer cannot be told", async () => {
    const december = await approvedBatch(db, "2026-12", { 3: "30.00" });
    const fileA = await paypalFile(december);
    await cancelPaymentFileFlow(db, { gameId: GAME, fileId: fileA, reason: "wrong execution date" }, web(preparer));
    const fileB = await paypalFile(december);
    const three = await statementOf(december, 3);
    const shared = await sentIn(fileA, three.id);
    await db.updateTable("payment_file_item").set({ reference: shared }).where("file_id", "=", fileB).execute();

    const header = "Customer ID,Transaction ID,Status,Amount,Currency,Fee,Reason";
    const text = `${header}\r\n${shared},TX-D3,SUCCESS,-30.00,USD,0,\r\n`;
    const out = await importInto(december, "paypal", text);
    expect(verdicts(out)).toEqual([
      ["cancelled_file", expect.stringMatching(/also sent in a payment file cancelled here.*cannot be told/)],
    ]);
    expect(out.applied.paid).toBe(0);
    expect(await statementOf(december, 3)).toMatchObject({ state: "in_payment", payment_file_id: fileB });
  });
});

describe("a report giving one payment two ways of coming back", () => {
  it("[finance] counts and applies one rejection, and lists the other line", async () => {
    const march = await approvedBatch(db, "2026-03", { 4: "35.00" }, [[4, "payment_returned"]]);
    const fileId = await paypalFile(march);
    const reference = await sentIn(fileId, (await statementOf(march, 4)).id);
    const text = `reference,outcome,reason\r\n${reference},rejected,account closed\r\n${reference},returned,closed\r\n`;
    const planned = await importInto(march, "generic", text, true);
    expect(verdicts(planned)).toEqual([
      ["reject", expect.stringMatching(/^rejected: owed again/)],
      ["not_applicable", "the same result appears twice in this file"],
    ]);
    expect(planned.counts).toMatchObject({ reject: 1, not_applicable: 1 });
    const out = await importInto(march, "generic", text);
    expect(out.applied.rejected).toBe(1);
    expect(await statementOf(march, 4)).toMatchObject({ state: "approved", payment_file_id: null });
  });
});
