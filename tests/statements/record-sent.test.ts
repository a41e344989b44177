import type { ParsedMail } from "mailparser";
import type { SMTPServer } from "smtp-server";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import {
  countBatchEmails,
  getDeliveryFailure,
  listStatementDeliveries,
  UNMAILABLE,
} from "@/db/queries/statement-deliveries";
import { deliverStatement, mailboxOf, noAddressNote, queueStatementSends } from "@/lib/statements/send";
import { SentNotRecorded } from "@/lib/statements/delivery-log";
import { type JobMeta, WorkerStoppedError } from "@/lib/jobs/queue";
import { SEND_ATTEMPTS } from "@/lib/statements/send-job";
import { handleSendStatement, sendStatement } from "@/lib/statements/send-job.handler";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { statementFixture } from "./fixture";
import { setIssuer, startSmtp } from "./support";

/**
 * Once the mail server has taken a statement email, failing to record it is not a refusal: the record is tried
 * again, the email is not sent again and no failure is logged. The database is made to fail the first writes after
 * the server took the email; the server is a real SMTP server started here. Then the batch's send: what it queues
 * once some statements were emailed already.
 */

const GAME = "stmt-record";
let t: TestDatabase;
let smtp: SMTPServer;
const received: ParsedMail[] = [];
let marchBatch: string;
let marchStatements: string[];

const BUSY = "busy@example.test";

beforeAll(async () => {
  smtp = await startSmtp(received, [], [BUSY]);
  t = await createTestDatabase();
  applyTestEnv(t);
  await setIssuer(t.db);
  ({ marchBatch, marchStatements } = await statementFixture(t.db, GAME));
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await t?.drop();
});

/** The database, but its next `failures` transactions once an email is received fail as a lost connection. */
function failingAfterSend(db: Db, failures: number): { db: Db; failed: () => number } {
  let failed = 0;
  const receivedBefore = received.length;
  const proxy = new Proxy(db, {
    get(target, property) {
      if (property === "transaction" && received.length > receivedBefore && failed < failures) {
        return () => ({
          execute: async () => {
            failed += 1;
            throw new Error("Connection terminated unexpectedly");
          },
        });
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: proxy, failed: () => failed };
}

/** Queues one email of the statement and returns the job that sends it (the send not yet tried). */
async function queueOneSend(statementId: string) {
  const acting = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "web" as const };
  await queueStatementSends(t.db, { gameId: GAME, batchId: marchBatch, statementIds: [statementId] }, acting);
  const log = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
  const queued = log.find((d) => d.status === "queued" && !log.some((o) => o.sendId === d.sendId && o !== d));
  return { gameId: GAME, statementId, sendId: queued?.sendId ?? "", to: queued?.toAddress ?? "" };
}

describe("recording a statement email the server took", () => {
  it("is tried again when the database fails, without sending it twice or logging a failure", async () => {
    const statementId = marchStatements[0] ?? "";
    const acting = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "web" as const };
    expect(
      await queueStatementSends(t.db, { gameId: GAME, batchId: marchBatch, statementIds: [statementId] }, acting),
    ).toMatchObject({ queued: 1 });
    const [queued] = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
    expect(queued?.status).toBe("queued");

    const flaky = failingAfterSend(t.db, 2);
    const job = { gameId: GAME, statementId, sendId: queued?.sendId ?? "", to: queued?.toAddress ?? "" };
    expect(await deliverStatement(flaky.db, job, 1)).toBe("sent");
    expect(flaky.failed()).toBe(2);
    expect(received.map((m) => (Array.isArray(m.to) ? "" : m.to?.text))).toEqual(["anna@example.test"]);
    // The same id on every attempt of this send: a second copy would be one message to the recipient's mail client.
    expect(received[0]?.messageId).toBe(`<statement.${job.sendId}@studio.test>`);

    const log = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
    expect(log.map((d) => d.status).sort()).toEqual(["queued", "sent"]);
    // A retry of the job finds it sent and sends nothing.
    expect(await deliverStatement(t.db, job, 2)).toBe("already sent");
    expect(received).toHaveLength(1);
  });

  it("failing through every try, is recorded as sent on the job's last attempt, never as not sent", async () => {
    const statementId = marchStatements[0] ?? "";
    const job = await queueOneSend(statementId);
    const flaky = failingAfterSend(t.db, 4);
    const sent = received.length;
    const error = await deliverStatement(flaky.db, job, SEND_ATTEMPTS).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SentNotRecorded);
    expect(flaky.failed()).toBe(4);
    expect(received).toHaveLength(sent + 1);
    // What the job's last attempt does with it: the email went out, so it is recorded as sent.
    await (error as SentNotRecorded).recordAgain();
    const after = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
    expect(after.filter((d) => d.sendId === job.sendId).map((d) => d.status)).toEqual(
      expect.arrayContaining(["queued", "sent"]),
    );
    expect(after.some((d) => d.sendId === job.sendId && d.status === "failed")).toBe(false);
    expect(await getDeliveryFailure(t.db, { gameId: GAME, recipientPlayerId: 901 })).toBeNull();
    expect(await deliverStatement(t.db, job, SEND_ATTEMPTS)).toBe("already sent");
    expect(received).toHaveLength(sent + 1);
  });
});

describe("the job sending a statement email", () => {
  it("on an early attempt, records an email the server took when the database comes back, not sent again", async () => {
    const statementId = marchStatements[0] ?? "";
    const job = await queueOneSend(statementId);
    // Away for longer than the send's own tries (4): the job keeps trying rather than failing into a retry.
    const flaky = failingAfterSend(t.db, 9);
    const sent = received.length;
    await sendStatement(flaky.db, job, { jobId: "job-1", attempt: 1 }, () => 0);
    expect(flaky.failed()).toBe(9);
    expect(received).toHaveLength(sent + 1);
    const after = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
    expect(after.filter((d) => d.sendId === job.sendId).map((d) => d.status)).toEqual(
      expect.arrayContaining(["queued", "sent"]),
    );
    expect(await deliverStatement(t.db, job, 2)).toBe("already sent");
    expect(received).toHaveLength(sent + 1);
  });
});

describe("a statement email whose job was handed back", () => {
  it("is not sent by the stopping worker: the retry sends it", async () => {
    const statementId = marchStatements[0] ?? "";
    const job = await queueOneSend(statementId);
    const sent = received.length;
    const stop = new AbortController();
    stop.abort(new WorkerStoppedError());
    await expect(deliverStatement(t.db, job, 1, stop.signal)).rejects.toBeInstanceOf(WorkerStoppedError);
    expect(received).toHaveLength(sent);
    const log = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
    expect(log.filter((d) => d.sendId === job.sendId).map((d) => d.status)).toEqual(["queued"]);
    expect(await deliverStatement(t.db, job, 2)).toBe("sent");
    expect(received).toHaveLength(sent + 1);
    // On its last attempt too: nothing recorded here (the queue's dead letter records it given up).
    const last = await queueOneSend(statementId);
    const meta = { jobId: "job-last", attempt: SEND_ATTEMPTS, signal: stop.signal };
    await expect(sendStatement(t.db, last, meta)).rejects.toBeInstanceOf(WorkerStoppedError);
    const lines = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
    expect(lines.filter((d) => d.sendId === last.sendId).map((d) => d.status)).toEqual(["queued"]);
    expect(received).toHaveLength(sent + 1);
  });
});

describe("the batch's send", () => {
  it("emails only the statements never emailed, so a second send queues none twice; all again when asked", async () => {
    const acting = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "web" as const };
    const params = { gameId: GAME, batchId: marchBatch };
    const noAddress = marchStatements[3] ?? "";
    // The first statement was emailed above (as recording a payment or its own page would). The batch's emailed count
    // (what the window page reads) agrees with the delivery log throughout.
    const emailedInLog = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(distinct d.statement_id) as n from statement_delivery d
            join payout_statement s on s.id = d.statement_id where s.batch_id = ${marchBatch}`.execute(t.db)
        ).rows[0]?.n,
      );
    // One recipient has no email address on record: never sent one, and counted apart.
    await t.db.updateTable("payout_statement").set({ player_email: null }).where("id", "=", noAddress).execute();
    expect(await countBatchEmails(t.db, marchBatch)).toMatchObject({ emailed: 1, noAddress: 1, failed: 0 });
    expect(await emailedInLog()).toBe(1);
    const first = await queueStatementSends(t.db, { ...params, unemailed: true }, acting);
    expect(first).toMatchObject({ queued: 2, skippedNoEmail: [904] });
    const emailedOnce = await t.db.selectFrom("statement_delivery").select("statement_id").execute();
    expect(new Set(emailedOnce.map((d) => d.statement_id))).toEqual(new Set(marchStatements.slice(0, 3)));
    expect(await countBatchEmails(t.db, marchBatch)).toMatchObject({ emailed: 3, noAddress: 1, failed: 0 });
    expect(await emailedInLog()).toBe(3);

    const second = await queueStatementSends(t.db, { ...params, unemailed: true }, acting);
    expect(second).toMatchObject({ queued: 0, skippedNoEmail: [904] });
    expect(await t.db.selectFrom("statement_delivery").select("id").execute()).toHaveLength(emailedOnce.length);

    const again = await queueStatementSends(t.db, params, acting);
    expect(again).toMatchObject({ queued: 3, skippedNoEmail: [904] });
    expect(await countBatchEmails(t.db, marchBatch)).toMatchObject({ emailed: 3, noAddress: 1, failed: 0 });
    // An empty address is no address either, nor is one that is not a single mailbox (never sent one: mailboxOf).
    for (const email of ["", "ha@example.test, an@example.test", "An <ha@example.test>"]) {
      await t.db.updateTable("payout_statement").set({ player_email: email }).where("id", "=", noAddress).execute();
      expect(await countBatchEmails(t.db, marchBatch)).toMatchObject({ emailed: 3, noAddress: 1, failed: 0 });
      expect(mailboxOf(email)).toBeNull();
    }
    // Sending to that recipient alone sends nothing: no run is counted, and the press is audited as changing nothing.
    const alone = await queueStatementSends(t.db, { ...params, recipientPlayerId: 904 }, acting);
    expect(alone).toMatchObject({ queued: 0, skippedNoEmail: [904], emailRuns: again.emailRuns });
    const sends = await t.db
      .selectFrom("audit_log")
      .select(["outcome", "detail"])
      .where("action", "=", "statements.send")
      .where("target", "=", marchBatch)
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(sends).toMatchObject({ outcome: "nothing_changed", detail: { queued: 0, noEmail: 1, recipient: 904 } });
    // The count can be read from its partial index, whatever the batch's size (the query implies its predicate).
    const plan = await t.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      return sql<{ "QUERY PLAN": string }>`explain select count(*) from payout_statement
        where batch_id = ${marchBatch} and ${UNMAILABLE}`.execute(trx);
    });
    expect(plan.rows.map((r) => r["QUERY PLAN"]).join("\n")).toContain("payout_statement_unmailable_idx");
  });

  it("recording a payment names the recipient it cannot email, even when no statement can be emailed", async () => {
    const acting = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "web" as const };
    const noAddress = marchStatements[3] ?? "";
    // The recipient without an address is paid now: the only paid statement never emailed.
    await t.db
      .updateTable("payout_statement")
      .set((eb) => ({
        state: "paid",
        paid_amount_usd: eb.ref("payable_usd"),
        paid_on: "2026-04-02",
        payment_reference: "WIRE-2026-03-904",
      }))
      .where("id", "=", noAddress)
      .execute();
    const before = await t.db.selectFrom("statement_delivery").select("id").execute();
    const paid = await queueStatementSends(t.db, { gameId: GAME, batchId: marchBatch, paidUnsent: true }, acting);
    expect(paid).toMatchObject({ queued: 0, skippedNoEmail: [904] });
    expect(noAddressNote(paid.skippedNoEmail.length)).toBe(" 1 recipient has no usable email address on record.");
    expect(noAddressNote(0)).toBe("");
    expect(await t.db.selectFrom("statement_delivery").select("id").execute()).toHaveLength(before.length);
  });
});

describe("an email that failed to send", () => {
  it("is tried again while attempts are left, then offered again by the batch's send, once", async () => {
    const acting = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "web" as const };
    const statementId = marchStatements[1] ?? "";
    // Its recipient's mail server answers "try again later" (451), whatever the attempt.
    await t.db.updateTable("payout_statement").set({ player_email: BUSY }).where("id", "=", statementId).execute();
    const before = await countBatchEmails(t.db, marchBatch);
    expect(before.failed).toBe(0);
    await queueStatementSends(t.db, { gameId: GAME, batchId: marchBatch, statementIds: [statementId] }, acting);
    const [queued] = (await listStatementDeliveries(t.db, { gameId: GAME, statementId })).filter(
      (d) => d.status === "queued" && d.toAddress === BUSY,
    );
    const job = { gameId: GAME, statementId, sendId: queued?.sendId ?? "", to: BUSY };
    // The error a retry is thrown with (logged and kept by the job queue) has the code, not the address quoted.
    const retried = await deliverStatement(t.db, job, 1).then(
      () => null,
      (error: unknown) => String(error),
    );
    expect(retried).toMatch(/attempt 1 of \d+\): 451 4\.3\.0$/);
    expect(retried).not.toContain(BUSY);
    expect(await getDeliveryFailure(t.db, { gameId: GAME, recipientPlayerId: 902 })).toBeNull();
    expect(await deliverStatement(t.db, job, SEND_ATTEMPTS)).toBe("failed");
    const failures = (await listStatementDeliveries(t.db, { gameId: GAME, statementId })).filter(
      (d) => d.status === "failed",
    );
    expect(failures.map((d) => [d.attempt, d.final])).toEqual(
      expect.arrayContaining([
        [1, false],
        [SEND_ATTEMPTS, true],
      ]),
    );
    // The delivery log, read by finance on the statement's page, keeps the server's whole answer.
    expect(failures.map((d) => d.serverAnswer)).toContain(`451 4.3.0 <${BUSY}>: Try again later`);
    // Counted as emailed no more: the batch's send offers it again, and only it.
    expect(await countBatchEmails(t.db, marchBatch)).toEqual({ ...before, failed: 1, runs: before.runs + 1 });
    const offered = await queueStatementSends(t.db, { gameId: GAME, batchId: marchBatch, unemailed: true }, acting);
    expect(offered.queued).toBe(1);
    const log = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
    expect(log.filter((d) => d.status === "queued" && d.toAddress === BUSY)).toHaveLength(2);
    // Once queued again it is pending, not failed: a second send queues nothing.
    expect(await countBatchEmails(t.db, marchBatch)).toEqual({ ...before, runs: before.runs + 2 });
    const second = await queueStatementSends(t.db, { gameId: GAME, batchId: marchBatch, unemailed: true }, acting);
    expect(second.queued).toBe(0);
    expect(received.some((m) => !Array.isArray(m.to) && m.to?.text === BUSY)).toBe(false);
  });
});

describe("a send whose last attempt fails before reaching the mail server", () => {
  it("is recorded as failed, not left queued, and offered again by the batch's send", async () => {
    const acting = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "web" as const };
    const statementId = marchStatements[2] ?? "";
    await queueStatementSends(t.db, { gameId: GAME, batchId: marchBatch, statementIds: [statementId] }, acting);
    const log = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
    const queued = log.find((d) => d.status === "queued" && !log.some((o) => o.sendId === d.sendId && o !== d));
    // The statement cannot be read for the job (here: the job names another game), on every attempt.
    const job = { gameId: "another-game", statementId, sendId: queued?.sendId ?? "", to: queued?.toAddress ?? "" };
    await expect(handleSendStatement(job, { attempt: 1 } as JobMeta)).rejects.toThrow();
    expect(await countBatchEmails(t.db, marchBatch)).toMatchObject({ failed: 0 });
    await expect(handleSendStatement(job, { attempt: SEND_ATTEMPTS } as JobMeta)).rejects.toThrow();
    const after = await listStatementDeliveries(t.db, { gameId: GAME, statementId });
    expect(after.filter((d) => d.sendId === job.sendId).map((d) => [d.status, d.final])).toEqual(
      expect.arrayContaining([
        ["queued", false],
        ["failed", true],
      ]),
    );
    expect(await countBatchEmails(t.db, marchBatch)).toMatchObject({ failed: 1 });
    expect(received.some((m) => !Array.isArray(m.to) && m.to?.text === job.to)).toBe(false);
  });
});
