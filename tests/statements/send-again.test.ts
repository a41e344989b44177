import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countBatchEmails, countStatementSends } from "@/db/queries/statement-deliveries";
import { queueStatementSends } from "@/lib/statements/send";
import { saveStatementSettings } from "@/lib/statements/settings";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { statementFixture } from "./fixture";

/**
 * "Email statements again" emails every recipient of a batch: sent from a page drawn before another run was queued
 * (a first press cut off by a proxy but still running, a colleague, another tab), it is refused, nothing queued.
 */
const GAME = "stmt-again";
const CLI = { actor: null, via: "cli" } as const;
const WEB = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "web" } as const;
let t: TestDatabase;
let batchId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  batchId = (await statementFixture(t.db, GAME)).marchBatch;
  await saveStatementSettings(t.db, { studioName: "Northwind Games", studioAddress: "", linkDays: 30 }, CLI);
});
afterAll(async () => t?.drop());

const queuedLines = async () =>
  (await t.db.selectFrom("statement_delivery").select("id").where("status", "=", "queued").execute()).length;

describe("emailing every statement of a batch again", () => {
  it("is refused when a run was queued since the page was drawn, and goes once it was drawn after it", async () => {
    const first = await queueStatementSends(t.db, { gameId: GAME, batchId, unemailed: true }, WEB);
    expect(first.queued).toBeGreaterThan(0);
    // Two pages drawn now, both offering to email every statement again.
    const { runs } = await countBatchEmails(t.db, batchId);
    expect(runs).toBe(1);
    const again = await queueStatementSends(t.db, { gameId: GAME, batchId, runsSeen: runs }, WEB);
    expect(again.queued).toBe(first.queued);
    const before = await queuedLines();
    await expect(queueStatementSends(t.db, { gameId: GAME, batchId, runsSeen: runs }, WEB)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/^Statement emails of this batch were queued since this page was drawn/),
    });
    expect(await queuedLines()).toBe(before);
    expect((await countBatchEmails(t.db, batchId)).runs).toBe(2);
  });

  it("emailing one statement is refused when its page was drawn before another email of it was queued", async () => {
    const [statement] = await t.db
      .selectFrom("payout_statement")
      .select("id")
      .where("batch_id", "=", batchId)
      .orderBy("recipient_player_id")
      .execute();
    if (!statement) throw new Error("no statement");
    // Two pages of the statement drawn now (two people, or two tabs): the first press emails it.
    const seen = await countStatementSends(t.db, statement.id);
    const one = { gameId: GAME, batchId, statementIds: [statement.id], sendsSeen: seen };
    expect((await queueStatementSends(t.db, one, WEB)).queued).toBe(1);
    const before = await queuedLines();
    await expect(queueStatementSends(t.db, one, WEB)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/^This statement was emailed since this page was drawn/),
    });
    expect(await queuedLines()).toBe(before);
    // Drawn again, the page may email it once more.
    const now = await countStatementSends(t.db, statement.id);
    expect(now).toBe(seen + 1);
    expect((await queueStatementSends(t.db, { ...one, sendsSeen: now }, WEB)).queued).toBe(1);
  });
});
