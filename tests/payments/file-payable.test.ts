import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { hasFilePayableStatement } from "@/db/queries/payment-flow";
import { createPaymentFiles } from "@/lib/payments/files";
import { changePayoutDetails } from "@/lib/profiles/profiles";
import { payoutDetailsInputSchema } from "@/lib/profiles/schemas";
import { GAME, web } from "../payouts/fixtures";
import { approvedBatch, finance, preparer, setUpPaymentsDatabase } from "./support";

/**
 * Whether the window page offers to make a payment file: only while some payable statement's recipient has details a
 * file can pay. Against real PostgreSQL, with a recipient paid by hand (7) beside one paid by PayPal (5).
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

describe("a batch whose payable statements no file can pay", () => {
  it("[finance] is not offered a payment file, which would be refused; one with a PayPal recipient is", async () => {
    const byHand = await approvedBatch(db, "2026-03", { 7: "10.00" });
    expect(await hasFilePayableStatement(db, { gameId: GAME, batchId: byHand })).toBe(false);
    // What the form would have met: a refusal for every method.
    await expect(
      createPaymentFiles(db, { gameId: GAME, batchId: byHand, method: "paypal" }, web(preparer)),
    ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/^No statement can be paid by this/) });

    const mixed = await approvedBatch(db, "2026-04", { 5: "20.00", 7: "10.00" });
    expect(await hasFilePayableStatement(db, { gameId: GAME, batchId: mixed })).toBe(true);
    // Once the PayPal recipient is in a file, the one left is paid by hand: nothing more to file.
    await createPaymentFiles(db, { gameId: GAME, batchId: mixed, method: "paypal" }, web(preparer));
    expect(await hasFilePayableStatement(db, { gameId: GAME, batchId: mixed })).toBe(false);
  });
});
