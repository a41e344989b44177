import type { Db } from "@/db";
import { addGame, insertBatch, insertSnapshot } from "../exports/fixture";

/**
 * A game with two months: in February recipient 902 rolls 6.00 over under the minimum; in March it is carried in,
 * 901 (a Cyrillic name) is paid, 903 (Greek) is held, 904 (Vietnamese) has a reversal of a February renewal and
 * rolls over under the minimum.
 */
export async function statementFixture(db: Db, gameId: string) {
  await addGame(db, gameId);
  const february = await insertSnapshot(db, {
    gameId,
    start: "2026-02-01T00:00:00Z",
    end: "2026-03-01T00:00:00Z",
    recipients: [],
    lines: [],
  });
  const feb = await insertBatch(db, {
    gameId,
    snapshotId: february,
    status: "paid",
    statements: [
      { recipientId: 902, name: "Zoë", email: "zoe@example.test", gross: "6.00", reversed: "0.00", state: "carried" },
    ],
  });
  const march = await insertSnapshot(db, {
    gameId,
    start: "2026-03-01T00:00:00Z",
    end: "2026-04-01T00:00:00Z",
    recipients: [],
    lines: [
      { periodId: 1001, recipientId: 901, paidAt: "2026-03-03T10:00:00Z", amountUsd: "49.99", attributedUsd: "25.10" },
      { periodId: 1002, recipientId: 901, paidAt: "2026-03-09T10:00:00Z", amountUsd: "49.99", attributedUsd: "15.00" },
      { periodId: 1003, recipientId: 902, paidAt: "2026-03-04T10:00:00Z", amountUsd: "19.99", attributedUsd: "7.25" },
      {
        periodId: 1004,
        recipientId: 903,
        paidAt: "2026-03-05T10:00:00Z",
        amountUsd: "99.99",
        attributedUsd: "1234.56",
      },
      { periodId: 1005, recipientId: 904, paidAt: "2026-03-06T10:00:00Z", amountUsd: "9.99", attributedUsd: "8.40" },
    ],
    reversals: [
      {
        periodId: 990,
        recipientId: 904,
        reversedAttributedUsd: "1.80",
        // Refunded in part in March, and again in April, before March was pulled: March's statement dates the March
        // refund it deducts.
        latestRefundAt: "2026-04-10T09:00:00Z",
        events: [
          {
            refundedAt: "2026-03-20T08:00:00Z",
            amountUsd: "5.00",
            before: "0.00",
            after: "5.00",
            reversedAttributedUsd: "1.80",
            full: false,
          },
        ],
      },
    ],
  });
  const mar = await insertBatch(db, {
    gameId,
    snapshotId: march,
    status: "approved",
    statements: [
      {
        recipientId: 901,
        name: "Анна Петрова",
        email: "anna@example.test",
        gross: "40.10",
        reversed: "0.00",
        state: "paid",
      },
      {
        recipientId: 902,
        name: "Zoë",
        email: "zoe@example.test",
        gross: "7.25",
        reversed: "0.00",
        carriedIn: "6.00",
        state: "paid",
        paymentReference: "WIRE-2026-03-902",
      },
      {
        recipientId: 903,
        name: "Ελένη Παπαδοπούλου",
        email: "eleni@example.test",
        gross: "1234.56",
        reversed: "0.00",
        state: "held",
        holdReason: "Waiting for a tax form",
      },
      {
        recipientId: 904,
        name: "Nguyễn Văn An",
        email: "ha@example.test",
        gross: "8.40",
        reversed: "1.80",
        state: "carried",
      },
    ],
  });
  await db
    .insertInto("payout_carry")
    .values({
      from_statement_id: feb.statementIds[0] ?? "",
      to_statement_id: mar.statementIds[1] ?? "",
      amount_usd: "6.00",
    })
    .execute();
  return { februaryBatch: feb.batchId, marchBatch: mar.batchId, marchStatements: mar.statementIds };
}

/** The id of a recipient's statement in a batch of the fixture. */
export async function statementIdOf(db: Db, batchId: string, recipientId: number): Promise<string> {
  const row = await db
    .selectFrom("payout_statement")
    .select("id")
    .where("batch_id", "=", batchId)
    .where("recipient_player_id", "=", String(recipientId))
    .executeTakeFirstOrThrow();
  return row.id;
}
