import { randomUUID } from "node:crypto";
import { whileInsertsRefused } from "../support/refused-inserts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clearDeliveryFailure,
  countBatchEmails,
  insertDeliveries,
  listSendTargets,
  markDeliveryFailed,
} from "@/db/queries/statement-deliveries";
import { queuePaidStatementEmails } from "@/lib/statements/send";
import { saveStatementSettings } from "@/lib/statements/settings";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { statementFixture, statementIdOf } from "./fixture";
import { up } from "@/db/migrations/2026_12_05_0900_statement_send_failures";

/** A statement whose email failed to send is offered again by its batch, whatever its recipient's later emails did. */

const GAME = "stmt-failures";
const RECIPIENT = 902;
const CLI = { actor: null, via: "cli" } as const;
let t: TestDatabase;
let march: { batchId: string; statementId: string };
let february: { batchId: string; statementId: string };

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  const fixture = await statementFixture(t.db, GAME);
  const of = async (batchId: string) => ({ batchId, statementId: await statementIdOf(t.db, batchId, RECIPIENT) });
  march = await of(fixture.marchBatch);
  february = await of(fixture.februaryBatch);
});
afterAll(async () => t?.drop());

async function send(statementId: string, outcome: "sent" | "failed" | "refused" | "queued") {
  const sendId = randomUUID();
  const row = { statementId, gameId: GAME, recipientPlayerId: RECIPIENT, sendId, toAddress: "zoe@example.test" };
  await insertDeliveries(t.db, [{ ...row, status: "queued" }]);
  if (outcome === "queued") return;
  if (outcome === "sent") {
    await insertDeliveries(t.db, [{ ...row, status: "sent", attempt: 1 }]);
    await clearDeliveryFailure(t.db, { gameId: GAME, recipientPlayerId: RECIPIENT });
    return;
  }
  await insertDeliveries(t.db, [{ ...row, status: "failed", attempt: 6, final: true, serverAnswer: "421 busy" }]);
  const failed = { gameId: GAME, recipientPlayerId: RECIPIENT, statementId, toAddress: row.toAddress };
  await markDeliveryFailed(t.db, { ...failed, serverAnswer: "421 busy", refused: outcome === "refused" });
}

async function offeredAgain(batch: { batchId: string; statementId: string }) {
  const targets = await listSendTargets(t.db, { gameId: GAME, batchId: batch.batchId, unemailed: true });
  return {
    offered: targets.some((target) => target.statementId === batch.statementId),
    failed: (await countBatchEmails(t.db, batch.batchId)).failed,
  };
}

describe("a statement's failed email", () => {
  it("stays offered again after another statement of the same recipient is sent or fails", async () => {
    await send(march.statementId, "failed");
    expect(await offeredAgain(march)).toEqual({ offered: true, failed: 1 });
    // February's statement of the same recipient is emailed: March's failure is still March's.
    await send(february.statementId, "sent");
    expect(await offeredAgain(march)).toEqual({ offered: true, failed: 1 });
    // February's fails later: both are offered again, each by its own batch.
    await send(february.statementId, "failed");
    expect(await offeredAgain(march)).toEqual({ offered: true, failed: 1 });
    expect(await offeredAgain(february)).toEqual({ offered: true, failed: 1 });
    // March's sent again (queued after its failure): no longer offered, nor counted as failed.
    await send(march.statementId, "queued");
    expect(await offeredAgain(march)).toEqual({ offered: false, failed: 0 });
    // An address refused for good is not offered again.
    await send(february.statementId, "refused");
    expect(await offeredAgain(february)).toEqual({ offered: false, failed: 0 });
  });
});

describe("statements failed before they were kept one by one", () => {
  it("are found in the delivery log when the table is made, unless their address was refused", async () => {
    const anna = await t.db
      .selectFrom("payout_statement")
      .select(["id", "batch_id"])
      .where("batch_id", "=", march.batchId)
      .where("recipient_player_id", "=", "901")
      .executeTakeFirstOrThrow();
    const row = { statementId: anna.id, gameId: GAME, recipientPlayerId: 901, toAddress: "anna@example.test" };
    // Logged as an earlier release logged it: the delivery lines alone, the recipient's row since taken over.
    await insertDeliveries(t.db, [
      { ...row, sendId: randomUUID(), status: "queued" },
      { ...row, sendId: randomUUID(), status: "failed", attempt: 6, final: true, serverAnswer: "421 busy" },
    ]);
    await t.db.deleteFrom("statement_send_failure").execute();
    await up(t.db);
    const kept = await t.db.selectFrom("statement_send_failure").select(["statement_id", "batch_id"]).execute();
    // Anna's alone: March's 902 was sent again since (its last line is a queued one), February's refused for good.
    expect(kept).toEqual([{ statement_id: anna.id, batch_id: march.batchId }]);
  });
});

describe("emails that could not be queued after a payment", () => {
  it("are offered again by the batch's send, though the statement was emailed before", async () => {
    await saveStatementSettings(t.db, { studioName: "Northwind Games", studioAddress: "", linkDays: 30 }, CLI);
    // Emailed once (when approved), then paid: the payment's email is owed.
    await send(march.statementId, "sent");
    await t.db
      .insertInto("payout_statement_event")
      .values({
        statement_id: march.statementId,
        batch_id: march.batchId,
        game_id: GAME,
        recipient_player_id: String(RECIPIENT),
        kind: "paid",
        state_after: "paid",
        detail: "{}",
      })
      .execute();
    const before = await offeredAgain(march);
    expect(before.offered).toBe(false);
    // Queuing fails (the database refuses the delivery line): the payment stands, the email is not sent.
    const params = { gameId: GAME, batchId: march.batchId, statementIds: [march.statementId] };
    await whileInsertsRefused(t.db, { table: "statement_delivery", message: "delivery log unavailable" }, () =>
      expect(queuePaidStatementEmails(t.db, params, CLI)).rejects.toThrow("delivery log unavailable"),
    );
    // The batch's send offers it again, counted with the emails that failed to send.
    expect(await offeredAgain(march)).toEqual({ offered: true, failed: before.failed + 1 });
  });
});

describe("the email a payment owes", () => {
  it("is owed still when a send queued before the payment records its outcome after it", async () => {
    const anna = await statementIdOf(t.db, march.batchId, 901);
    const owed = async () =>
      (await listSendTargets(t.db, { gameId: GAME, batchId: march.batchId, paidUnsent: true })).map(
        (s) => s.statementId,
      );
    const row = { statementId: anna, gameId: GAME, recipientPlayerId: 901, toAddress: "anna@example.test" };
    const sendId = randomUUID();
    await insertDeliveries(t.db, [{ ...row, sendId, status: "queued" }]);
    await t.db
      .insertInto("payout_statement_event")
      .values({
        statement_id: anna,
        batch_id: march.batchId,
        game_id: GAME,
        recipient_player_id: "901",
        kind: "paid",
        state_after: "paid",
        detail: "{}",
      })
      .execute();
    // That send rendered the statement before the payment, whenever its outcome was written.
    await insertDeliveries(t.db, [{ ...row, sendId, status: "sent", attempt: 1 }]);
    expect(await owed()).toContain(anna);
    // A send queued after the payment is the payment's email.
    await insertDeliveries(t.db, [{ ...row, sendId: randomUUID(), status: "queued" }]);
    expect(await owed()).not.toContain(anna);
  });
});
