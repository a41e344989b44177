import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { createPaymentFiles } from "@/lib/payments/files";
import { returnPayment } from "@/lib/payments/returns";
import { markStatementsPaid } from "@/lib/payouts/batch-approval";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { savePayoutSettings } from "@/lib/payouts/settings";
import { changePayoutDetails, reviewPayoutChange } from "@/lib/profiles/profiles";
import { actor, GAME, web } from "../payouts/fixtures";
import { approvedBatch, finance, paypal, preparer, refusedByRule, statesOf, setUpPaymentsDatabase } from "./support";

/**
 * A studio with one finance user switches the two-person rule off: that person then reviews their own change of
 * payout details, confirms details they entered after approval and records the return of a payment they recorded.
 * With the rule on each needs a second person (tests/payments/payment-bars.test.ts and the returns tests).
 */

let db: Db;
const alone = { actor: preparer, role: "finance" as const, via: "web" as const };

setUpPaymentsDatabase(
  (database) => {
    db = database;
  },
  async () => {
    await savePayoutSettings(
      db,
      { twoPersonRule: false, minPayoutUsd: "10.00" },
      { actor: actor("admin"), via: "web" },
    );
  },
);

describe("the two-person rule switched off", () => {
  it("[finance] lets the one finance user review their own change of payout details", async () => {
    const change = await changePayoutDetails(
      db,
      { gameId: GAME, playerId: 1, input: paypal("new1@example.com") },
      finance,
    );
    expect(change.outcome).toBe("pending");
    await expect(
      reviewPayoutChange(
        db,
        { gameId: GAME, playerId: 1, changeId: change.changeId ?? "", decision: "approve" },
        alone,
      ),
    ).resolves.toMatchObject({ outcome: "approved" });
  });

  it("[finance] lets them record the return of a payment they recorded", async () => {
    const batchId = await approvedBatch(db, "2026-05", { 3: "25.00" });
    await markStatementsPaid(
      db,
      { gameId: GAME, batchId, paidOn: "2026-06-01", method: "bank_transfer", reference: "WIRE-3" },
      web(preparer),
    );
    const statement = await db
      .selectFrom("payout_statement")
      .select("id")
      .where("batch_id", "=", batchId)
      .executeTakeFirstOrThrow();
    await returnPayment(db, { gameId: GAME, statementId: statement.id, reason: "Bank sent it back" }, web(preparer));
    expect(await statesOf(db, batchId)).toEqual({ 3: "returned" });
  });

  it("[finance] lets them confirm details they entered after approval", async () => {
    const batchId = await approvedBatch(db, "2026-07", { 6: "30.00" }, [[6, "no_payout_method"]]);
    const entered = await changePayoutDetails(
      db,
      { gameId: GAME, playerId: 6, input: paypal("p6@example.com") },
      finance,
    );
    expect(entered.outcome).toBe("applied");
    const reason = "the creator gave this address on a call";
    await overrideFlag(
      db,
      { gameId: GAME, batchId, flag: "payout_details_changed", recipientPlayerId: 6, reason },
      web(preparer),
    );
    const made = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    expect(made.refused).toEqual([]);
    expect(await statesOf(db, batchId)).toEqual({ 6: "in_payment" });
  });
});

describe("the two-person rule for what a person did, read as it is now", () => {
  const setRule = (twoPersonRule: boolean) =>
    savePayoutSettings(db, { twoPersonRule, minPayoutUsd: "10.00" }, { actor: actor("admin"), via: "web" });

  it("[finance] binds the person by the rule in force now, not the one a batch was approved under", async () => {
    // Approved under the rule, then the team shrinks to one and switches it off: the one person records the return.
    await setRule(true);
    const before = await approvedBatch(db, "2026-09", { 4: "30.00" });
    await markStatementsPaid(
      db,
      { gameId: GAME, batchId: before, paidOn: "2026-10-01", method: "bank_transfer", reference: "WIRE-4" },
      web(preparer),
    );
    const paid = await db
      .selectFrom("payout_statement")
      .select("id")
      .where("batch_id", "=", before)
      .executeTakeFirstOrThrow();
    const returned = () =>
      returnPayment(db, { gameId: GAME, statementId: paid.id, reason: "Bank sent it back" }, web(preparer));
    // Under the rule, the one who recorded the payment is refused its return, and the attempt is audited.
    await expect(returned()).rejects.toThrow(/^Two-person rule: you recorded this payment/);
    expect(await refusedByRule(db, before)).toEqual([
      { action: "payouts.payment.returned", actor_email: preparer.email },
    ]);
    await setRule(false);
    await returned();
    expect(await statesOf(db, before)).toEqual({ 4: "returned" });

    // Approved with the rule off, then a second finance user joins and it is switched on: the first details one of
    // them enters after approval are confirmed by the other.
    const after = await approvedBatch(db, "2026-10", { 7: "30.00" }, [[7, "no_payout_method"]]);
    await setRule(true);
    try {
      await changePayoutDetails(db, { gameId: GAME, playerId: 7, input: paypal("p7@example.com") }, finance);
      await expect(
        overrideFlag(
          db,
          {
            gameId: GAME,
            batchId: after,
            flag: "payout_details_changed",
            recipientPlayerId: 7,
            reason: "the creator sent this address",
          },
          web(preparer),
        ),
      ).rejects.toThrow(/Two-person rule: you entered these payout details/);
    } finally {
      await setRule(false);
    }
  });
});
