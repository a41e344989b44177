import type { ParsedMail } from "mailparser";
import type { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countBatchEmails, getDeliveryFailure, listStatementDeliveries } from "@/db/queries/statement-deliveries";
import { resolveStatementLink, revokeStatementLinks } from "@/lib/statements/links";
import { deliverStatement, queueStatementSends, WITHHELD_ANSWER } from "@/lib/statements/send";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { statementFixture } from "./fixture";
import { setIssuer, startSmtp } from "./support";

/**
 * Revoking a batch's statement links also stops its emails queued before and not yet sent: whatever made finance end
 * the links (a wrong figure, a wrong address) holds for the emails still waiting. They are offered again by the batch's
 * send, and emails queued after the revocation go out with links that work. The mail server is a real SMTP server.
 */

const GAME = "stmt-revoke-queued";
let t: TestDatabase;
let smtp: SMTPServer;
const received: ParsedMail[] = [];
let batchId: string;
let statements: string[];
const acting = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "web" as const };

beforeAll(async () => {
  smtp = await startSmtp(received);
  t = await createTestDatabase();
  applyTestEnv(t);
  await setIssuer(t.db);
  ({ marchBatch: batchId, marchStatements: statements } = await statementFixture(t.db, GAME));
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await t?.drop();
});

/** The send jobs the delivery log holds for these statements and not yet settled, as the queue would run them. */
async function waitingJobs(statementIds: readonly string[]) {
  const jobs = [];
  for (const statementId of statementIds) {
    const log = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
    for (const queued of log.filter((d) => d.status === "queued")) {
      if (log.some((d) => d.sendId === queued.sendId && d.status !== "queued")) continue;
      jobs.push({ gameId: GAME, statementId, sendId: queued.sendId, to: queued.toAddress ?? "" });
    }
  }
  return jobs;
}

const linkOf = (mail: ParsedMail) => /\/api\/statement-links\/([A-Za-z0-9_.-]+)/.exec(mail.text ?? "")?.[1] ?? "";

describe("revoking a batch's statement links", () => {
  it("withholds its emails queued before and not yet sent, offered again; later ones carry working links", async () => {
    const two = statements.slice(0, 2);
    expect(await queueStatementSends(t.db, { gameId: GAME, batchId, statementIds: two }, acting)).toMatchObject({
      queued: 2,
    });
    const before = await waitingJobs(two);
    expect(before).toHaveLength(2);

    expect(await revokeStatementLinks(t.db, { gameId: GAME, batchId }, acting)).toEqual({ withheld: 2 });
    for (const job of before) expect(await deliverStatement(t.db, job, 1)).toBe("withheld");
    expect(received).toHaveLength(0);

    for (const statementId of two) {
      const log = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
      expect(log.map((d) => [d.status, d.final, d.serverAnswer])).toEqual(
        expect.arrayContaining([["failed", true, WITHHELD_ANSWER]]),
      );
    }
    // Offered again as failed to send; the recipients' addresses are not marked as failing.
    expect(await countBatchEmails(t.db, batchId)).toMatchObject({ failed: 2 });
    expect(await getDeliveryFailure(t.db, { gameId: GAME, recipientPlayerId: 901 })).toBeNull();
    const audit = await t.db
      .selectFrom("audit_log")
      .select(["action", "outcome", "detail"])
      .where("action", "in", ["statements.links.revoke", "statement.delivery"])
      .orderBy("id")
      .execute();
    expect(audit.map((a) => [a.action, a.outcome])).toEqual([
      ["statements.links.revoke", "succeeded"],
      ["statement.delivery", "withheld"],
      ["statement.delivery", "withheld"],
    ]);
    expect(audit[0]?.detail).toEqual({ emailsWithheld: 2 });

    // Emailed again after the revocation: sent, with links that open the statement.
    expect(await queueStatementSends(t.db, { gameId: GAME, batchId, unemailed: true }, acting)).toMatchObject({
      queued: expect.any(Number),
    });
    const again = await waitingJobs(two);
    expect(again).toHaveLength(2);
    for (const job of again) expect(await deliverStatement(t.db, job, 1)).toBe("sent");
    expect(received).toHaveLength(2);
    for (const mail of received) expect(await resolveStatementLink(t.db, linkOf(mail))).not.toBeNull();
    expect(await countBatchEmails(t.db, batchId)).toMatchObject({ failed: 0 });
    // Nothing was waiting any more: a second revocation withholds none.
    const left = (await waitingJobs(statements)).length;
    expect(await revokeStatementLinks(t.db, { gameId: GAME, batchId }, acting)).toEqual({ withheld: left });
  });
});
