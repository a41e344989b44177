import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { Db } from "@/db";
import { cancelPaymentFile } from "@/db/queries/payment-files";
import { cancelPaymentFileFlow, downloadPaymentFile, listBatchPaymentFiles } from "@/lib/payments/file-access";
import { createPaymentFiles } from "@/lib/payments/files";
import { GAME, web } from "../payouts/fixtures";
import { waitFor } from "../support/wait";
import { approvedBatch, approver, preparer, statesOf, setUpPaymentsDatabase } from "./support";

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
});

/** Until another connection waits for a row lock (the download's update of the file's row). */
function waitForLockWait(database: Db): Promise<unknown> {
  return waitFor(
    async () => {
      const rows = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where wait_event_type = 'Lock' and datname = current_database()`.execute(database);
      return (rows.rows[0]?.n ?? 0) > 0;
    },
    { within: 5_000, every: 25, what: "the download to wait for the file's row" },
  );
}
