import pg from "pg";
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

  it("is not owed again by a send that waited behind another while the return was made", async () => {
    const anna = await statementIdOf(t.db, batchId, 901);
    const owed = async () =>
      (await listSendTargets(t.db, { gameId: GAME, batchId, unemailed: true })).some((s) => s.statementId === anna);
    await queueStatementSends(t.db, { gameId: GAME, batchId, statementIds: [anna] }, finance);
    // Another send of the batch holds its lock; this one starts and waits behind it.
    const holder = new pg.Client({ connectionString: t.url });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("select pg_advisory_xact_lock(hashtext($1))", [`statement-sends:${batchId}`]);
      const waiting = queueStatementSends(t.db, { gameId: GAME, batchId, statementIds: [anna] }, finance);
      // Until it waits for this database's advisory lock (other test files share the server), for at most a minute.
      const started = Date.now();
      for (;;) {
        const { rows } = await holder.query<{ n: string }>(
          `select count(*) as n from pg_locks where locktype = 'advisory' and not granted
             and database = (select oid from pg_database where datname = current_database())`,
        );
        if (Number(rows[0]?.n) > 0) break;
        if (Date.now() - started > 60_000) throw new Error("the second send never waited for the first");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Returned while it waits: the return owes an email, which the waiting send then queues.
      await returnPayment(t.db, { gameId: GAME, statementId: anna, reason: "the account was closed" }, finance);
      expect(await owed()).toBe(true);
      await holder.query("commit");
      expect((await waiting).queued).toBe(1);
    } finally {
      await holder.end();
    }
    // Queued after the return: its email is not owed again, nor listed among the returns not yet emailed.
    expect(await owed()).toBe(false);
    const unsent = await listSendTargets(t.db, { gameId: GAME, batchId, returnedUnsent: true });
    expect(unsent.map((s) => s.statementId)).not.toContain(anna);
  });
});
