import { sql } from "kysely";
import type { ParsedMail } from "mailparser";
import type { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSendAgainstRevocation, getBatchLinkRevocation } from "@/db/queries/statement-links";
import { countBatchEmails, getDeliveryFailure, listStatementDeliveries } from "@/db/queries/statement-deliveries";
import { resolveStatementLink, revokeStatementLinks } from "@/lib/statements/links";
import { WITHHELD_ANSWER } from "@/lib/statements/delivery-log";
import { deliverStatement, queueStatementSends } from "@/lib/statements/send";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { waitFor } from "../support/wait";
import { statementFixture } from "./fixture";
import { setIssuer, startSmtp, waitingJobs as waitingJobsOf } from "./support";

/**
 * Revoking a batch's statement links also stops its emails queued before and not yet sent: whatever made finance end
 * the links (a wrong figure, a wrong address) holds for the emails still waiting. They are offered again by the batch's
 * send, and emails queued after the revocation go out with links that work. The mail server is a real SMTP server.
 */

const GAME = "stmt-revoke-queued";
let t: TestDatabase;
let smtp: SMTPServer;
const received: ParsedMail[] = [];
const hooks: { beforeTaking?: () => Promise<unknown> } = {};
let batchId: string;
let statements: string[];
const acting = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "web" as const };

beforeAll(async () => {
  smtp = await startSmtp(received, [], [], hooks);
  t = await createTestDatabase();
  applyTestEnv(t);
  await setIssuer(t.db);
  ({ marchBatch: batchId, marchStatements: statements } = await statementFixture(t.db, GAME));
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await t?.drop();
});

const waitingJobs = (statementIds: readonly string[]) => waitingJobsOf(t.db, GAME, statementIds);

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

  it("withholds a send whose statement was emailed again since without making it owed, and only once", async () => {
    const id = statements[2] ?? "";
    const one = { gameId: GAME, batchId, statementIds: [id] };
    expect(await queueStatementSends(t.db, one, acting)).toMatchObject({ queued: 1 });
    const [first] = await waitingJobs([id]);
    await revokeStatementLinks(t.db, { gameId: GAME, batchId }, acting);
    // Emailed again after the revocation (the batch's "all again", the statement's own page), and delivered.
    expect(await queueStatementSends(t.db, one, acting)).toMatchObject({ queued: 1 });
    const second = (await waitingJobs([id])).find((job) => job.sendId !== first?.sendId);
    expect(second && (await deliverStatement(t.db, second, 1))).toBe("sent");
    // The first runs late: withheld, and the statement stays emailed (its later email stands for it).
    const job = first ?? { gameId: GAME, statementId: id, sendId: "", to: "" };
    expect(await deliverStatement(t.db, job, 1)).toBe("withheld");
    const owed = async () =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from statement_send_failure where statement_id = ${id}`.execute(t.db)
      ).rows[0]?.n;
    expect(await owed()).toBe(0);
    // Run again (its worker died before the queue heard of it): its outcome stands, nothing recorded twice.
    expect(await deliverStatement(t.db, job, 2)).toBe("already failed");
    const withheld = await t.db
      .selectFrom("audit_log")
      .select("id")
      .where("action", "=", "statement.delivery")
      .where("outcome", "=", "withheld")
      .where("target", "=", id)
      .execute();
    expect(withheld).toHaveLength(1);
  });

  it("waits for a send's check to end, so the link that send carries is revoked too", async () => {
    const id = statements[0] ?? "";
    await queueStatementSends(t.db, { gameId: GAME, batchId, statementIds: [id] }, acting);
    const [job] = await waitingJobs([id]);
    const sendId = job?.sendId ?? "";
    let revoked: Promise<{ withheld: number }> | null = null;
    const checked = await t.db.transaction().execute(async (trx) => {
      const check = await checkSendAgainstRevocation(trx, sendId);
      revoked = revokeStatementLinks(t.db, { gameId: GAME, batchId }, acting);
      // The revocation waits for the check's lock before it reads its time.
      await waitFor(
        async () =>
          ((
            await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'`.execute(t.db)
          ).rows[0]?.n ?? 0) > 0,
        { within: 5_000, every: 25, what: "the revocation to wait for the send's check" },
      );
      return check;
    });
    expect(checked.revoked).toBe(false);
    expect(await revoked).toMatchObject({ withheld: expect.any(Number) });
    // The link that send carries is one the revocation ends (resolveStatementLink's rule).
    const revokedAt = await getBatchLinkRevocation(t.db, batchId);
    expect(revokedAt !== null && checked.linkIssuedAt <= revokedAt.getTime()).toBe(true);
  });

  it("makes a statement owed again when its email went out while the links were being revoked", async () => {
    // The batch's links are revoked while the mail server is taking the message.
    hooks.beforeTaking = () => revokeStatementLinks(t.db, { gameId: GAME, batchId }, acting);
    try {
      const id = statements[1] ?? "";
      await queueStatementSends(t.db, { gameId: GAME, batchId, statementIds: [id] }, acting);
      const [job] = await waitingJobs([id]);
      const failedBefore = (await countBatchEmails(t.db, batchId)).failed;
      const takenBefore = received.length;
      expect(job && (await deliverStatement(t.db, job, 1))).toBe("sent");
      expect(received).toHaveLength(takenBefore + 1);
      // Its link was issued before the revocation: it no longer opens, and the statement is offered again.
      expect(await resolveStatementLink(t.db, linkOf(received.at(-1) as ParsedMail))).toBeNull();
      expect((await countBatchEmails(t.db, batchId)).failed).toBe(failedBefore + 1);
    } finally {
      hooks.beforeTaking = undefined;
    }
  });
});
