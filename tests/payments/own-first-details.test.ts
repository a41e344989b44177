import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { TwoPersonRefusal } from "@/lib/errors";
import { approvePayoutBatch, markStatementsPaid, refuseApprovalUnderTwoPersonRule } from "@/lib/payouts/batch-approval";
import { approveStatements, holdStatements, preparePayoutBatch, releaseStatements } from "@/lib/payouts/batches";
import { OWN_FIRST_DETAILS_RELEASE, ownFirstDetailsReason } from "@/lib/payouts/offered-actions";
import { recipientsOnOwnFirstDetails } from "@/lib/payouts/own-details";
import { savePayoutSettings } from "@/lib/payouts/settings";
import { changePayoutDetails } from "@/lib/profiles/profiles";
import { monthWindow } from "@/lib/time";
import { actor, GAME, insertSnapshot, web } from "../payouts/fixtures";
import { approver, paypal, preparer, refusedByRule, setUpPaymentsDatabase, statesOf } from "./support";

/**
 * A recipient's first payout details apply at once: nobody but the person who typed them sees them before a payment
 * goes to them. Under the two-person rule, that person does not approve the batch paying them (they could type their
 * own account as a recipient's and approve its payment): another finance user does, or the payout is held. Recipients
 * 1 – 5 have details the preparer entered (tests/payments/support.ts).
 */

let db: Db;
const third = actor("finance");

setUpPaymentsDatabase((database) => {
  db = database;
});

/** A month's batch prepared by the preparer, every statement approved, the batch still a draft. */
async function draftBatch(month: string, gross: Record<number, string>): Promise<string> {
  await insertSnapshot(db, {
    window: month,
    recipients: Object.entries(gross).map(([id, g]) => ({ id: Number(id), gross: g })),
  });
  const { batchId } = await preparePayoutBatch(db, { gameId: GAME, window: monthWindow(month) }, web(preparer));
  const drafts = await db.selectFrom("payout_statement").select("id").where("batch_id", "=", batchId).execute();
  await approveStatements(db, { gameId: GAME, batchId, ids: drafts.map((d) => d.id) }, web(preparer));
  return batchId;
}

/** First PayPal details of a recipient, entered by the person who will be asked to approve. */
function enteredByApprover(playerId: number, email: string) {
  return changePayoutDetails(
    db,
    { gameId: GAME, playerId, input: paypal(email) },
    { actor: approver, role: "finance", via: "web" },
  );
}

async function statementOf(batchId: string, playerId: number): Promise<string> {
  const row = await db
    .selectFrom("payout_statement")
    .select("id")
    .where("batch_id", "=", batchId)
    .where("recipient_player_id", "=", String(playerId))
    .executeTakeFirstOrThrow();
  return row.id;
}

describe("first payout details and the batch's approval", () => {
  it("[finance] who typed a recipient's first details may not approve the batch paying them; another may", async () => {
    const entered = await enteredByApprover(7, "mine@example.com");
    expect(entered.outcome).toBe("applied");
    const batchId = await draftBatch("2026-03", { 1: "20.00", 7: "40.00" });
    expect(
      await recipientsOnOwnFirstDetails(db, { gameId: GAME, batchId, actorId: approver.id, states: ["approved"] }),
    ).toEqual([7]);

    const refusal = approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver));
    await expect(refusal).rejects.toBeInstanceOf(TwoPersonRefusal);
    await expect(refusal).rejects.toThrow(ownFirstDetailsReason([7]));
    expect(await statesOf(db, batchId)).toEqual({ 1: "approved", 7: "approved" });
    expect(await refusedByRule(db, batchId)).toEqual([
      { action: "payouts.batch.approve", actor_email: approver.email },
    ]);

    await expect(approvePayoutBatch(db, { gameId: GAME, batchId }, web(third))).resolves.toMatchObject({
      approved: 2,
    });
  });

  it("[finance] approves once that payout is held, then may not release it; the command line asks first", async () => {
    await enteredByApprover(8, "p8@example.com");
    const batchId = await draftBatch("2026-04", { 1: "20.00", 8: "30.00" });
    // The command line asks before it approves the drafts, naming those it would pay (not the flagged ones it holds).
    await db.updateTable("payout_statement").set({ state: "draft" }).where("batch_id", "=", batchId).execute();
    const cli = { actor: approver, via: "cli" as const };
    await expect(refuseApprovalUnderTwoPersonRule(db, { gameId: GAME, batchId }, cli, [1, 8])).rejects.toThrow(
      ownFirstDetailsReason([8]),
    );
    await expect(refuseApprovalUnderTwoPersonRule(db, { gameId: GAME, batchId }, cli, [1])).resolves.toBeUndefined();
    await approveStatements(
      db,
      { gameId: GAME, batchId, ids: [await statementOf(batchId, 1), await statementOf(batchId, 8)] },
      web(preparer),
    );

    await holdStatements(
      db,
      { gameId: GAME, batchId, ids: [await statementOf(batchId, 8)], reason: "details to confirm by phone" },
      web(approver),
    );
    await expect(approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver))).resolves.toMatchObject({
      approved: 1,
      held: 1,
    });
    // Released by the same person once the batch is approved, it would be paid all the same: someone else releases it.
    const release = (by: typeof approver) =>
      releaseStatements(
        db,
        { gameId: GAME, batchId, ids: [statement8], reason: "confirmed with the creator by phone" },
        web(by),
      );
    const statement8 = await statementOf(batchId, 8);
    await expect(release(approver)).rejects.toThrow(OWN_FIRST_DETAILS_RELEASE);
    expect(await statesOf(db, batchId)).toEqual({ 1: "approved", 8: "held" });
    await expect(release(third)).resolves.toMatchObject({ changed: 1 });
    expect(await statesOf(db, batchId)).toEqual({ 1: "approved", 8: "approved" });
  });

  it("[finance] approves a later batch once a payment has gone to those details", async () => {
    await enteredByApprover(9, "p9@example.com");
    const first = await draftBatch("2026-05", { 9: "25.00" });
    await approvePayoutBatch(db, { gameId: GAME, batchId: first }, web(third));
    await markStatementsPaid(
      db,
      { gameId: GAME, batchId: first, paidOn: "2026-06-02", method: "paypal", reference: "PP-9" },
      web(third),
    );
    const second = await draftBatch("2026-06", { 9: "35.00" });
    expect(
      await recipientsOnOwnFirstDetails(db, {
        gameId: GAME,
        batchId: second,
        actorId: approver.id,
        states: ["approved"],
      }),
    ).toEqual([]);
    await expect(approvePayoutBatch(db, { gameId: GAME, batchId: second }, web(approver))).resolves.toMatchObject({
      approved: 1,
    });
  });

  it("[finance] with the two-person rule off, approves a batch paying details they entered", async () => {
    await enteredByApprover(10, "p10@example.com");
    const batchId = await draftBatch("2026-07", { 10: "45.00" });
    await savePayoutSettings(
      db,
      { twoPersonRule: false, minPayoutUsd: "10.00" },
      { actor: actor("admin"), via: "web" },
    );
    await expect(approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver))).resolves.toMatchObject({
      approved: 1,
    });
  });
});
