import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countBatchEmails, listSendTargets } from "@/db/queries/statement-deliveries";
import { returnPayment } from "@/lib/payments/returns";
import { queueChangedStatementEmails, queueStatementSends } from "@/lib/statements/send";
import { saveStatementSettings } from "@/lib/statements/settings";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { statementFixture, statementIdOf } from "./fixture";

/**
 * A payment or a return owes its recipient an email, queued after the change commits. Should the process end in
 * between (a deploy, a crash), the statement is offered again by the batch's send, though it was emailed before.
 */
const GAME = "stmt-owed";
const RECIPIENT = 902;
const CLI = { actor: null, via: "cli" } as const;
const finance = { actor: { id: "u-fin-2", email: "finance2@payout-desk.test" }, via: "web" as const };
let t: TestDatabase;
let batchId: string;
let statementId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  batchId = (await statementFixture(t.db, GAME)).marchBatch;
  statementId = await statementIdOf(t.db, batchId, RECIPIENT);
  await saveStatementSettings(t.db, { studioName: "Northwind Games", studioAddress: "", linkDays: 30 }, CLI);
});
afterAll(async () => t?.drop());

const offered = async () =>
  (await listSendTargets(t.db, { gameId: GAME, batchId, unemailed: true })).some((s) => s.statementId === statementId);

describe("the email a return owes", () => {
  it("is offered by the batch's send when it was never queued, and no more once it is", async () => {
    // Emailed when it was paid.
    await queueStatementSends(t.db, { gameId: GAME, batchId, statementIds: [statementId] }, finance);
    expect(await offered()).toBe(false);
    const failedBefore = (await countBatchEmails(t.db, batchId)).failed;
    // The payment is undone; the process ends before the return's email is queued.
    await returnPayment(t.db, { gameId: GAME, statementId, reason: "the bank never sent it" }, finance);
    expect(await offered()).toBe(true);
    expect((await countBatchEmails(t.db, batchId)).failed).toBe(failedBefore + 1);
    // Queued (by the batch's send, or the return's own send when it runs): owed no more.
    const sent = await queueChangedStatementEmails(t.db, { gameId: GAME, batchId }, finance);
    expect(sent.returned.queued).toBe(1);
    expect(await offered()).toBe(false);
    expect((await countBatchEmails(t.db, batchId)).failed).toBe(failedBefore);
  });
});
