import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { fileMethodsThatCanPay } from "@/lib/payments/file-payable";
import { createPaymentFiles } from "@/lib/payments/files";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { changePayoutDetails } from "@/lib/profiles/profiles";
import { payoutDetailsInputSchema } from "@/lib/profiles/schemas";
import { GAME, web } from "../payouts/fixtures";
import { approvedBatch, approver, finance, paypal, preparer, setUpPaymentsDatabase } from "./support";

/**
 * Whether the window page offers to make a payment file: only while some payable statement's recipient has details a
 * file can pay and no open flag that stops the money. Against real PostgreSQL, with a recipient paid by hand (7)
 * beside ones paid by PayPal (5, 6).
 */

let db: Db;
setUpPaymentsDatabase(
  (d) => {
    db = d;
  },
  async (d) => {
    const manual = payoutDetailsInputSchema.parse({ method: "manual", currency: "USD" });
    await changePayoutDetails(d, { gameId: GAME, playerId: 7, input: manual }, finance);
  },
);

/** The batch as the window page asks about it: its game, id and snapshot. */
async function target(batchId: string) {
  const batch = await db
    .selectFrom("payout_batch")
    .select("snapshot_id")
    .where("id", "=", batchId)
    .executeTakeFirstOrThrow();
  return { gameId: GAME, batchId, snapshotId: batch.snapshot_id };
}

const offered = async (batchId: string) => (await fileMethodsThatCanPay(db, await target(batchId))).length > 0;
const kinds = async (batchId: string) => fileMethodsThatCanPay(db, await target(batchId));

describe("the kinds of payment file offered", () => {
  it("[finance] are those that pay someone of the batch: a SEPA file for a euro bank account, not PayPal", async () => {
    // Recipient 2 is paid by bank transfer in EUR, 7 by hand: a PayPal or Wise file would be refused.
    const byBank = await approvedBatch(db, "2026-06", { 2: "25.00", 7: "10.00" });
    expect(await kinds(byBank)).toEqual(["sepa", "generic"]);
    const mixed = await approvedBatch(db, "2026-07", { 2: "25.00", 5: "20.00" });
    expect(await kinds(mixed)).toEqual(["paypal", "sepa", "generic"]);
  });
});

describe("a batch whose payable statements no file can pay", () => {
  it("[finance] is not offered a payment file, which would be refused; one with a PayPal recipient is", async () => {
    const byHand = await approvedBatch(db, "2026-03", { 7: "10.00" });
    expect(await offered(byHand)).toBe(false);
    // What the form would have met: a refusal for every method.
    await expect(
      createPaymentFiles(db, { gameId: GAME, batchId: byHand, method: "paypal" }, web(preparer)),
    ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/^No statement can be paid by this/) });

    const mixed = await approvedBatch(db, "2026-04", { 5: "20.00", 7: "10.00" });
    expect(await offered(mixed)).toBe(true);
    // Once the PayPal recipient is in a file, the one left is paid by hand: nothing more to file.
    await createPaymentFiles(db, { gameId: GAME, batchId: mixed, method: "paypal" }, web(preparer));
    expect(await offered(mixed)).toBe(false);
  });

  it("[finance] is not offered a payment file while every recipient it could pay is held back by a flag", async () => {
    // Recipient 6 had no details at approval (the flag overridden); details entered since raise a flag that bars
    // the payment until someone confirms them.
    const batchId = await approvedBatch(db, "2026-05", { 6: "30.00", 7: "10.00" }, [[6, "no_payout_method"]]);
    await changePayoutDetails(db, { gameId: GAME, playerId: 6, input: paypal("p6@example.com") }, finance);
    expect(await offered(batchId)).toBe(false);
    await expect(
      createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer)),
    ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/payout details changed after/) });

    await overrideFlag(
      db,
      {
        gameId: GAME,
        batchId,
        flag: "payout_details_changed",
        recipientPlayerId: 6,
        reason: "new address confirmed by the creator on a call",
      },
      web(approver),
    );
    expect(await offered(batchId)).toBe(true);
  });
});
