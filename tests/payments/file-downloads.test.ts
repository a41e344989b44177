import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { Db } from "@/db";
import { cancelPaymentFile } from "@/db/queries/payment-files";
import { lockPayoutsOfGame } from "@/db/queries/payout-batches";
import { cancelPaymentFileFlow, downloadPaymentFile, listBatchPaymentFiles } from "@/lib/payments/file-access";
import { createPaymentFiles } from "@/lib/payments/files";
import { applyPlan } from "@/lib/payments/apply-results";
import { importResults, planResults } from "@/lib/payments/results";
import { GAME, web } from "../payouts/fixtures";
import { waitFor } from "../support/wait";
import { approvedBatch, approver, preparer, statesOf, setUpPaymentsDatabase } from "./support";

/** A month's batch paying recipient 5 in one PayPal file, and PayPal's report that the file paid it. */
async function paidInOneFile(month: string, amount: string) {
  const batchId = await approvedBatch(db, month, { 5: amount });
  await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
  const file = await fileOf(batchId);
  const item = await db
    .selectFrom("payment_file_item")
    .select("reference")
    .where("file_id", "=", file.id)
    .executeTakeFirstOrThrow();
  const header = "Customer ID,Transaction ID,Status,Amount,Currency,Fee,Reason";
  return { batchId, file, text: `${header}\r\n${item.reference},TX-${month},SUCCESS,-${amount},USD,0.25,` };
}

/**
 * A payment file downloaded may have been uploaded to the provider: cancelling it would make its statements payable
 * again and pay them twice. A download and a cancel never overlap, and a cancel confirmed on a page drawn before a
 * download is refused.
 */

let db: Db;

setUpPaymentsDatabase((database) => {
  db = database;
});

async function fileOf(batchId: string) {
  const [file] = await listBatchPaymentFiles(db, { gameId: GAME, batchId });
  if (!file) throw new Error("no file");
  return file;
}

describe("downloading and cancelling a payment file", () => {
  it("[finance] refuses a cancel confirmed on a page drawn before someone downloaded the file", async () => {
    const batchId = await approvedBatch(db, "2026-03", { 1: "40.00" });
    await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    const drawn = await fileOf(batchId);
    expect(drawn.downloads).toBe(0);
    await downloadPaymentFile(db, { gameId: GAME, fileId: drawn.id }, web(approver));
    const after = await fileOf(batchId);
    expect(after).toMatchObject({ downloads: 1, lastDownloadedBy: approver.email });
    expect(after.lastDownloadedAt).toBeInstanceOf(Date);

    await expect(
      cancelPaymentFileFlow(
        db,
        { gameId: GAME, fileId: drawn.id, reason: "wrong method", downloadsSeen: drawn.downloads },
        web(preparer),
      ),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(
        new RegExp(`^This file was downloaded after this page was drawn \\(last by ${approver.email} at `),
      ),
    });
    expect(await statesOf(db, batchId)).toEqual({ 1: "in_payment" });
    expect((await fileOf(batchId)).status).toBe("live");

    // Seen, and checked with whoever downloaded it: cancelled.
    await expect(
      cancelPaymentFileFlow(
        db,
        { gameId: GAME, fileId: drawn.id, reason: "never uploaded, checked", downloadsSeen: 1 },
        web(preparer),
      ),
    ).resolves.toEqual({ returnedToApproved: 1 });
    expect(await statesOf(db, batchId)).toEqual({ 1: "approved" });
  });

  it("[finance] refuses a download that waited for a cancel, and counts none", async () => {
    const batchId = await approvedBatch(db, "2026-04", { 3: "25.00" });
    await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    const file = await fileOf(batchId);
    let downloading: Promise<unknown> = Promise.resolve();
    await db.transaction().execute(async (trx) => {
      // A cancel has taken the file's row; the download asked meanwhile waits for it.
      const cancelled = await cancelPaymentFile(trx, {
        gameId: GAME,
        fileId: file.id,
        reason: "wrong method",
        byEmail: preparer.email,
      });
      expect(cancelled).toEqual({ downloads: 0, lastDownloadedAt: null, lastDownloadedBy: null });
      downloading = downloadPaymentFile(db, { gameId: GAME, fileId: file.id }, web(approver)).then(
        () => "downloaded",
        (error: unknown) => error,
      );
      // The download has read the file as live and now waits on the row.
      await waitForLockWait(db);
    });
    await expect(downloading).resolves.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/^This payment file was cancelled/),
    });
    const after = await fileOf(batchId);
    expect(after).toMatchObject({ status: "cancelled", downloads: 0 });
    const audited = await db
      .selectFrom("audit_log")
      .select("id")
      .where("action", "=", "payouts.payment_file.download")
      .where("target", "=", file.id)
      .execute();
    expect(audited).toHaveLength(0);
  });

  it("[finance] two cancels of one file at once: one cancels it, the other is told by whom", async () => {
    const batchId = await approvedBatch(db, "2026-05", { 4: "30.00" });
    await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    const file = await fileOf(batchId);
    const outcomes: Promise<unknown>[] = [];
    await db.transaction().execute(async (trx) => {
      // The batch is busy (a results import, say): both cancels have read the file live and wait for its lock.
      await lockPayoutsOfGame(trx, GAME, 60_000);
      for (const who of [preparer, approver])
        outcomes.push(
          cancelPaymentFileFlow(db, { gameId: GAME, fileId: file.id, reason: "wrong method" }, web(who)).then(
            (done) => done,
            (error: unknown) => error,
          ),
        );
      await waitForLockWait(db, 2);
    });
    const [first, second] = await Promise.all(outcomes);
    const refused = [first, second].find((o) => o instanceof Error);
    const cancelled = [first, second].find((o) => !(o instanceof Error));
    expect(cancelled).toEqual({ returnedToApproved: 1 });
    expect(refused).toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(
        /^This payment file was cancelled meanwhile by \S+@payout-desk\.test at .*Nothing more was done\.$/,
      ),
    });
    expect(await statesOf(db, batchId)).toEqual({ 4: "approved" });
  });

  it("[finance] a file whose results pay every statement is completed with the payments, at once", async () => {
    const { batchId, text } = await paidInOneFile("2026-07", "40.00");
    const plan = await planResults(db, { gameId: GAME, batchId, format: "paypal", text });
    // The payment step alone, as a process stopped right after it committed would leave it.
    expect((await applyPlan(db, { gameId: GAME, batchId, plan }, web(approver))).paid).toBe(1);
    expect((await fileOf(batchId)).status).toBe("completed");
    expect(await statesOf(db, batchId)).toEqual({ 5: "paid" });
  });

  it("[finance] refuses to cancel a file whose results paid every statement before it was completed", async () => {
    const { batchId, file, text } = await paidInOneFile("2026-06", "60.00");
    const imported = await importResults(
      db,
      { gameId: GAME, batchId, format: "paypal", text, dryRun: false },
      web(approver),
    );
    expect(imported.applied.paid).toBe(1);
    // The moment between the import paying the file's statements and marking the file complete.
    await db.updateTable("payment_file").set({ status: "live" }).where("id", "=", file.id).execute();
    await expect(
      cancelPaymentFileFlow(db, { gameId: GAME, fileId: file.id, reason: "wrong execution date" }, web(preparer)),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/^Nothing of this payment file is still in payment: .* never upload it again\.$/),
    });
    // Left live by an import stopped before completing it, the file is completed now: never offered for upload.
    expect(await fileOf(batchId)).toMatchObject({ status: "completed", settledItems: 1, heldAtProvider: 0 });
    expect(await statesOf(db, batchId)).toEqual({ 5: "paid" });
  });

  it("[finance] refuses to cancel a file whose provider reported a payment in it as pending", async () => {
    const { batchId, file, text } = await paidInOneFile("2026-08", "45.00");
    // PayPal holds the payment until the recipient claims it: it may still be paid.
    const unclaimed = text.replace(",SUCCESS,", ",UNCLAIMED,");
    const imported = await importResults(
      db,
      { gameId: GAME, batchId, format: "paypal", text: unclaimed, dryRun: false },
      web(approver),
    );
    expect(imported.applied.pending).toBe(1);
    expect(await statesOf(db, batchId)).toEqual({ 5: "in_payment" });
    await expect(
      cancelPaymentFileFlow(db, { gameId: GAME, fileId: file.id, reason: "never uploaded" }, web(preparer)),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/reported 1 payment of this file as pending.*Nothing was cancelled\.$/),
    });
    expect(await statesOf(db, batchId)).toEqual({ 5: "in_payment" });
    // The page tells it: held at the provider, and nothing of it settled yet.
    expect(await fileOf(batchId)).toMatchObject({ status: "live", heldAtProvider: 1, settledItems: 0 });
    // The bank rejected the whole file since: confirmed, the cancel goes ahead.
    const confirmed = { gameId: GAME, fileId: file.id, reason: "rejected whole", restUnpaid: "confirmed" as const };
    expect(await cancelPaymentFileFlow(db, confirmed, web(preparer))).toEqual({ returnedToApproved: 1 });
    expect(await statesOf(db, batchId)).toEqual({ 5: "approved" });
  });
});

describe("a file the provider has", () => {
  it("[finance] records no pending answer for a file cancelled after the answer was read", async () => {
    const { batchId, file, text } = await paidInOneFile("2026-09", "35.00");
    const plan = await planResults(db, {
      gameId: GAME,
      batchId,
      format: "paypal",
      text: text.replace(",SUCCESS,", ",UNCLAIMED,"),
    });
    // Cancelled by a colleague while the report was read: its statement is payable again.
    await cancelPaymentFileFlow(db, { gameId: GAME, fileId: file.id, reason: "never uploaded" }, web(preparer));
    await expect(applyPlan(db, { gameId: GAME, batchId, plan }, web(approver))).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/^1 statement the provider reported pending is no longer in payment in its file/),
    });
    const pending = await db.selectFrom("payment_result").select("id").where("file_id", "=", file.id).execute();
    expect(pending).toEqual([]);
    expect(await statesOf(db, batchId)).toEqual({ 5: "approved" });
  });

  it("[finance] reads a pending answer after the payment's outcome, or beside it, as changing nothing", async () => {
    const { batchId, file, text } = await paidInOneFile("2026-11", "25.00");
    const unclaimed = text.replace(",SUCCESS,", ",UNCLAIMED,");
    const [header, line] = text.split("\r\n");
    // One report listing the payment pending, then paid: the outcome is recorded.
    const both = `${header}\r\n${unclaimed.split("\r\n")[1]}\r\n${line}`;
    const apply = (report: string) =>
      importResults(db, { gameId: GAME, batchId, format: "paypal", text: report, dryRun: false }, web(approver));
    expect((await apply(both)).applied).toMatchObject({ paid: 1, pending: 0 });
    // An older report read after it: nothing changes, and the import goes through.
    const older = await apply(unclaimed);
    expect(older.applied).toMatchObject({ paid: 0, pending: 0 });
    expect(older.counts.not_applicable).toBe(1);
    expect(await db.selectFrom("payment_result").select("outcome").where("file_id", "=", file.id).execute()).toEqual([
      { outcome: "paid" },
    ]);
  });

  it("[finance] is cancelled only once the person confirms the provider will not pay the rest", async () => {
    const batchId = await approvedBatch(db, "2026-10", { 1: "10.00", 5: "20.00" });
    await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    const file = await fileOf(batchId);
    const items = await db
      .selectFrom("payment_file_item")
      .select(["reference", "amount_usd"])
      .where("file_id", "=", file.id)
      .orderBy("amount_usd")
      .execute();
    const paidOne = items[0];
    if (!paidOne) throw new Error("no item");
    const header = "Customer ID,Transaction ID,Status,Amount,Currency,Fee,Reason";
    const text = `${header}\r\n${paidOne.reference},TX-2026-10,SUCCESS,-${paidOne.amount_usd},USD,0.25,`;
    await importResults(db, { gameId: GAME, batchId, format: "paypal", text, dryRun: false }, web(approver));
    const cancel = (restUnpaid?: "confirmed") =>
      cancelPaymentFileFlow(
        db,
        { gameId: GAME, fileId: file.id, reason: "the rest never paid", restUnpaid },
        web(preparer),
      );
    await expect(cancel()).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/^The provider answered for 1 payment of this file .* Nothing was cancelled\.$/),
    });
    expect(await statesOf(db, batchId)).toEqual({ 1: "paid", 5: "in_payment" });
    expect(await cancel("confirmed")).toEqual({ returnedToApproved: 1 });
    expect(await statesOf(db, batchId)).toEqual({ 1: "paid", 5: "approved" });
  });
});

/** Until other connections wait for a lock (the download's update of the file's row, or the batch's lock). */
function waitForLockWait(database: Db, waiting = 1): Promise<unknown> {
  return waitFor(
    async () => {
      const rows = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where wait_event_type = 'Lock' and datname = current_database()`.execute(database);
      return (rows.rows[0]?.n ?? 0) >= waiting;
    },
    { within: 5_000, every: 25, what: "the download to wait for the file's row" },
  );
}
