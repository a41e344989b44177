import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { postingOf } from "@/lib/exports/postings";
import { returnPayment } from "@/lib/payments/returns";
import { markStatementsPaid } from "@/lib/payouts/batch-approval";
import { listLedgerEntries } from "@/lib/payouts/ledger";
import { GAME, web } from "../payouts/fixtures";
import { approvedBatch, approver, preparer, setUpPaymentsDatabase } from "./support";

/**
 * A payment recorded on a day before its batch's approval (a person behind UTC records their own day; a payment made
 * outside the desk before the batch was approved) keeps its recorded date on the statement, but its journal posts on
 * the approval's day: the payable is never debited in the books before the earnings it pays were credited. Nor is
 * a payment taken back before it was posted.
 */

let db: Db;
let batchId: string;
let approvedOn: string;

setUpPaymentsDatabase(
  (database) => {
    db = database;
  },
  async () => {
    batchId = await approvedBatch(db, "2026-09", { 1: "100.00", 3: "70.00" });
    const batch = await db
      .selectFrom("payout_batch")
      .select("approved_at")
      .where("id", "=", batchId)
      .executeTakeFirstOrThrow();
    approvedOn = (batch.approved_at as Date).toISOString().slice(0, 10);
  },
);

/** The day before `day`, YYYY-MM-DD. */
function dayBefore(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

async function paid(recipient: number, paidOn: string): Promise<string> {
  const { id } = await db
    .selectFrom("payout_statement")
    .select("id")
    .where("batch_id", "=", batchId)
    .where("recipient_player_id", "=", String(recipient))
    .executeTakeFirstOrThrow();
  const marked = { gameId: GAME, batchId, ids: [id], paidOn, method: "paypal" as const, reference: `PP-${recipient}` };
  await markStatementsPaid(db, marked, web(preparer));
  return id;
}

/** The recipient's postings as "kind date". */
async function datesOf(recipient: number): Promise<string[]> {
  const entries = await listLedgerEntries(db, { gameId: GAME, batchId, recipientPlayerId: recipient });
  return entries.flatMap((entry) => {
    const posting = postingOf(entry);
    return posting ? [`${posting.kind} ${posting.date}`] : [];
  });
}

describe("a payment recorded on a day before its batch's approval", () => {
  it("[finance] posts on the approval's day, its statement keeping the day recorded", async () => {
    const earlier = dayBefore(approvedOn);
    const id = await paid(1, earlier);
    const statement = await db
      .selectFrom("payout_statement")
      .select((eb) => eb.fn<string>("to_char", ["paid_on", eb.val("YYYY-MM-DD")]).as("paid_on"))
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(statement.paid_on).toBe(earlier);
    expect(await datesOf(1)).toEqual([`accrual ${approvedOn}`, `payment ${approvedOn}`]);

    // Came back: the payment as it was posts on the approval's day too, the return on the day it was recorded.
    await returnPayment(db, { gameId: GAME, statementId: id, reason: "bounced" }, web(approver));
    const back = await db
      .selectFrom("payment_return")
      .select("at")
      .where("statement_id", "=", id)
      .executeTakeFirstOrThrow();
    const recorded = (back.at as Date).toISOString().slice(0, 10);
    expect(await datesOf(1)).toEqual([
      `accrual ${approvedOn}`,
      `payment ${approvedOn}`,
      `payment_returned ${recorded}`,
    ]);
  });

  it("[finance] a payment recorded on a later day posts on its own day, and so does its undoing", async () => {
    // The day after (a person ahead of UTC records their own day, which the desk takes up to tomorrow).
    const later = new Date(Date.parse(`${approvedOn}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const id = await paid(3, later);
    expect(await datesOf(3)).toEqual([`accrual ${approvedOn}`, `payment ${later}`]);
    // Undone the same UTC day: the undoing posts on the payment's day, not before the payment it takes back.
    await returnPayment(db, { gameId: GAME, statementId: id, reason: "never sent", undo: true }, web(approver));
    expect(await datesOf(3)).toEqual([`accrual ${approvedOn}`, `payment ${later}`, `payment_undone ${later}`]);
  });
});
