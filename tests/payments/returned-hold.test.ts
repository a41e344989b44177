import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { createPaymentFiles } from "@/lib/payments/files";
import { importResults } from "@/lib/payments/results";
import { carryStatementsForward, holdStatements } from "@/lib/payouts/batches";
import { wasRecipientPaidFor } from "@/lib/payouts/paid-status";
import { getPayoutBatch } from "@/lib/payouts/statements";
import { GAME, insertSnapshot, web } from "../payouts/fixtures";
import { expectInvariant } from "../payouts/ledger-setup";
import { prepareMonth } from "../support/payouts";
import { approvedBatch, approver, preparer, statesOf, setUpPaymentsDatabase } from "./support";

/**
 * A payment that came back and whose recipient does not answer: held, then carried forward whole, so that its batch
 * is settled and its window can be closed, the balance waiting for the recipient's next statement.
 */

let db: Db;

setUpPaymentsDatabase((database) => {
  db = database;
});

describe("a returned payment", () => {
  it("[finance] is held and carried forward, settling its batch", async () => {
    const batchId = await approvedBatch(db, "2026-08", { 1: "40.00", 3: "25.00" });
    const made = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    const items = await db
      .selectFrom("payment_file_item")
      .innerJoin("payout_statement as s", "s.id", "payment_file_item.statement_id")
      .select(["payment_file_item.reference", "s.recipient_player_id as recipient"])
      .where("payment_file_item.file_id", "=", made.files[0]?.id ?? "")
      .execute();
    const ref = (recipient: number) => items.find((i) => Number(i.recipient) === recipient)?.reference ?? "";
    const report = (rows: string[]) =>
      importResults(
        db,
        {
          gameId: GAME,
          batchId,
          format: "paypal",
          text: ["Customer ID,Transaction ID,Status,Amount,Currency,Fee,Reason", ...rows].join("\r\n"),
          dryRun: false,
        },
        web(approver),
      );
    await report([`${ref(1)},TX-1,SUCCESS,-40.00,USD,0,`, `${ref(3)},TX-3,SUCCESS,-25.00,USD,0,`]);
    await report([`${ref(1)},TX-1R,RETURNED,-40.00,USD,0,account closed`]);
    expect(await statesOf(db, batchId)).toEqual({ 1: "returned", 3: "paid" });
    expect((await getPayoutBatch(db, { gameId: GAME, batchId }))?.status).toBe("approved");

    const [returned] = await db
      .selectFrom("payout_statement")
      .select("id")
      .where("batch_id", "=", batchId)
      .where("recipient_player_id", "=", "1")
      .execute();
    const ids = [returned?.id ?? ""];
    await expect(
      holdStatements(db, { gameId: GAME, batchId, ids, reason: "Recipient does not answer" }, web(approver)),
    ).resolves.toMatchObject({ changed: 1, skipped: [] });
    // Nothing is owed unpaid in the batch any more: it is paid, the hold stays owed.
    expect(await statesOf(db, batchId)).toEqual({ 1: "held", 3: "paid" });
    expect((await getPayoutBatch(db, { gameId: GAME, batchId }))?.status).toBe("paid");

    await expect(
      carryStatementsForward(db, { gameId: GAME, batchId, ids, reason: "Pay with next month" }, web(approver)),
    ).resolves.toMatchObject({ changed: 1, skipped: [] });
    expect(await statesOf(db, batchId)).toEqual({ 1: "carried", 3: "paid" });
    const carried = await db
      .selectFrom("payout_statement")
      .select(["carry_out_usd", "paid_amount_usd"])
      .where("id", "=", ids[0] ?? "")
      .executeTakeFirstOrThrow();
    expect(carried).toMatchObject({ carry_out_usd: "40.00", paid_amount_usd: null });
    await expectInvariant(db);
  });
});

describe("a refund screen's 'paid, or being paid'", () => {
  it("[support] counts a statement frozen in an approved batch or in a payment file, not a draft", async () => {
    const periodOf = async (batchId: string) => {
      const row = await db
        .selectFrom("snapshot_line as l")
        .innerJoin("payout_batch as b", "b.snapshot_id", "l.snapshot_id")
        .select("l.period_id")
        .where("b.id", "=", batchId)
        .executeTakeFirstOrThrow();
      return Number(row.period_id);
    };
    await insertSnapshot(db, { window: "2026-02", recipients: [{ id: 3, gross: "20.00" }] });
    const draft = await prepareMonth(db, "2026-02");
    expect(await wasRecipientPaidFor(db, GAME, await periodOf(draft.batchId))).toBe(false);
    const approved = await approvedBatch(db, "2026-03", { 4: "30.00" });
    expect(await wasRecipientPaidFor(db, GAME, await periodOf(approved))).toBe(true);
    await createPaymentFiles(db, { gameId: GAME, batchId: approved, method: "paypal" }, web(preparer));
    expect(await statesOf(db, approved)).toEqual({ 4: "in_payment" });
    expect(await wasRecipientPaidFor(db, GAME, await periodOf(approved))).toBe(true);
  });
});
