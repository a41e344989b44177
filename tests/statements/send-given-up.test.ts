import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countBatchEmails, insertDeliveries, listSendTargets } from "@/db/queries/statement-deliveries";
import { enqueue, getBoss, stopBoss } from "@/lib/jobs/queue";
import { handleSendGivenUp } from "@/lib/statements/send-given-up-job.handler";
import { sendGivenUpJob } from "@/lib/statements/send-given-up-job";
import { sendStatementJob } from "@/lib/statements/send-job";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { statementFixture, statementIdOf } from "./fixture";

/**
 * A statement email whose last attempt ends without a result (its worker died, it ran past its expiry, it was handed
 * back at a shutdown) never reaches its own handler again: the job it leaves behind records the failure.
 */

const GAME = "stmt-given-up";
const RECIPIENT = 902;
let t: TestDatabase;
let march: { batchId: string; statementId: string };

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  const fixture = await statementFixture(t.db, GAME);
  march = { batchId: fixture.marchBatch, statementId: await statementIdOf(t.db, fixture.marchBatch, RECIPIENT) };
});
afterAll(async () => {
  await stopBoss();
  await t?.drop();
});

async function queuedSend() {
  const sendId = randomUUID();
  const payload = { gameId: GAME, statementId: march.statementId, sendId, to: "zoe@example.test" };
  await insertDeliveries(t.db, [
    { ...payload, recipientPlayerId: RECIPIENT, toAddress: payload.to, status: "queued" as const },
  ]);
  return payload;
}

async function linesOf(sendId: string) {
  return t.db
    .selectFrom("statement_delivery")
    .select(["status", "final", "attempt", "server_answer"])
    .where("send_id", "=", sendId)
    .orderBy("attempt")
    .execute();
}

async function offered() {
  const targets = await listSendTargets(t.db, { gameId: GAME, batchId: march.batchId, unemailed: true });
  return targets.some((target) => target.statementId === march.statementId);
}

describe("a statement email whose last attempt ended without a result", () => {
  it("is recorded failed for good by the job it leaves, and offered again by the batch's send", async () => {
    const payload = await queuedSend();
    expect(await offered()).toBe(false);
    const boss = await getBoss();
    const jobId = await enqueue(sendStatementJob, payload);
    expect(jobId).toEqual(expect.any(String));
    expect((await boss.getQueue(sendStatementJob.name))?.deadLetter).toBe(sendGivenUpJob.name);
    // Its last attempt taken by a worker that then stops without an answer: pg-boss fails it (by expiry or hand-back).
    const [taken] = await boss.fetch(sendStatementJob.name);
    expect(taken?.id).toBe(jobId);
    await sql`update pgboss.job set retry_count = retry_limit where id = ${jobId}::uuid`.execute(t.db);
    await boss.fail(sendStatementJob.name, jobId as string, { message: "job failed by timeout in active state" });
    const [left] = await boss.fetch(sendGivenUpJob.name);
    expect(left?.data).toEqual(payload);
    const before = (await countBatchEmails(t.db, march.batchId)).failed;
    await handleSendGivenUp(sendGivenUpJob.payload.parse(left?.data));
    const lines = await linesOf(payload.sendId);
    expect(lines.map((line) => [line.status, line.final, line.attempt])).toEqual([
      ["queued", false, 0],
      ["failed", true, 6],
    ]);
    // Whether the server took it before the worker stopped is not known, and the line says so.
    expect(lines[1]?.server_answer).toMatch(/^no result: its last attempt ended without one .*may have gone out$/);
    expect(await offered()).toBe(true);
    expect((await countBatchEmails(t.db, march.batchId)).failed).toBe(before + 1);
    // Run again (its own retry): nothing more is recorded.
    await handleSendGivenUp(payload);
    expect(await linesOf(payload.sendId)).toHaveLength(2);
  });

  it("leaves a send already recorded sent, or failed for good by its last attempt", async () => {
    const sent = await queuedSend();
    const line = { ...sent, recipientPlayerId: RECIPIENT, toAddress: sent.to, attempt: 6 };
    await insertDeliveries(t.db, [{ ...line, status: "sent" as const }]);
    await handleSendGivenUp(sent);
    expect((await linesOf(sent.sendId)).map((l) => l.status)).toEqual(["queued", "sent"]);
    const failed = await queuedSend();
    const failedLine = { ...failed, recipientPlayerId: RECIPIENT, toAddress: failed.to, attempt: 6 };
    await insertDeliveries(t.db, [{ ...failedLine, status: "failed" as const, final: true, serverAnswer: "421 busy" }]);
    await handleSendGivenUp(failed);
    expect((await linesOf(failed.sendId)).map((l) => [l.status, l.server_answer])).toEqual([
      ["queued", null],
      ["failed", "421 busy"],
    ]);
  });
});
