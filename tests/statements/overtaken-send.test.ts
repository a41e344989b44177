import type { ParsedMail } from "mailparser";
import type { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countBatchEmails, listSendTargets, listStatementDeliveries } from "@/db/queries/statement-deliveries";
import { returnPayment } from "@/lib/payments/returns";
import { SUPERSEDED_ANSWER } from "@/lib/statements/delivery-log";
import { deliverStatement, queueChangedStatementEmails, queueStatementSends } from "@/lib/statements/send";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { statementFixture, statementIdOf } from "./fixture";
import { setIssuer, startSmtp, waitingJobs } from "./support";

/**
 * An email of a statement still waiting in the queue when its payment changes (a return recorded, a payment's results
 * applied) is overtaken by the email the change queues: each goes out as the statement is when it is sent, so both
 * would tell the recipient the same thing. The recipient gets one. The mail server is a real SMTP server.
 */
const GAME = "stmt-overtaken";
const RECIPIENT = 902;
const finance = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "web" as const };
let t: TestDatabase;
let smtp: SMTPServer;
const received: ParsedMail[] = [];
let batchId: string;
let statementId: string;

beforeAll(async () => {
  smtp = await startSmtp(received);
  t = await createTestDatabase();
  applyTestEnv(t);
  await setIssuer(t.db);
  batchId = (await statementFixture(t.db, GAME)).marchBatch;
  statementId = await statementIdOf(t.db, batchId, RECIPIENT);
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await t?.drop();
});

describe("a statement email overtaken by a later one before it went out", () => {
  it("is not sent: the later one alone goes out, and nothing is owed or counted as failed", async () => {
    // Emailed by finance; the email waits in the queue (a slow mail server, a busy worker).
    await queueStatementSends(t.db, { gameId: GAME, batchId, statementIds: [statementId] }, finance);
    const [first] = await waitingJobs(t.db, GAME, [statementId]);
    if (!first) throw new Error("no queued send");
    const failedBefore = (await countBatchEmails(t.db, batchId)).failed;

    // Meanwhile its payment comes back: the return queues the email it owes.
    await returnPayment(t.db, { gameId: GAME, statementId, reason: "the bank sent it back" }, finance);
    expect((await queueChangedStatementEmails(t.db, { gameId: GAME, batchId }, finance)).returned.queued).toBe(1);
    const second = (await waitingJobs(t.db, GAME, [statementId])).find((job) => job.sendId !== first.sendId);
    if (!second) throw new Error("no second send");

    expect(await deliverStatement(t.db, first, 1)).toBe("superseded");
    expect(await deliverStatement(t.db, second, 1)).toBe("sent");
    expect(received).toHaveLength(1);
    expect(received[0]?.to).toMatchObject({ text: "zoe@example.test" });
    // Run again (its worker died before the queue heard of it): its outcome stands.
    expect(await deliverStatement(t.db, first, 2)).toBe("already failed");
    expect(received).toHaveLength(1);

    const log = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
    expect(log.filter((d) => d.sendId === first.sendId).map((d) => [d.status, d.final, d.serverAnswer])).toEqual(
      expect.arrayContaining([["failed", true, SUPERSEDED_ANSWER]]),
    );
    const offered = await listSendTargets(t.db, { gameId: GAME, batchId, unemailed: true });
    expect(offered.map((s) => s.statementId)).not.toContain(statementId);
    expect((await countBatchEmails(t.db, batchId)).failed).toBe(failedBefore);
    const audit = await t.db
      .selectFrom("audit_log")
      .select("outcome")
      .where("action", "=", "statement.delivery")
      .where("target", "=", statementId)
      .execute();
    expect(audit.map((a) => a.outcome)).toEqual(["superseded"]);
  });
});
