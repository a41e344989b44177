import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clearDeliveryFailure,
  getDeliveryFailure,
  insertDeliveries,
  listSendTargets,
  listStatementDeliveries,
} from "@/db/queries/statement-deliveries";
import { profileFlagsOf } from "@/lib/profiles/flags";
import { recordFailedAttempt, recordSendGivenUp } from "@/lib/statements/delivery-log";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { statementFixture, statementIdOf } from "./fixture";

/**
 * A final failure recorded late: one that says nothing of the address after a refusal of it, and one of a send a later
 * email of the same statement has overtaken.
 */

const GAME = "stmt-late";
const ANNA = "anna@example.test";
let t: TestDatabase;
let marchBatch: string;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  ({ marchBatch } = await statementFixture(t.db, GAME));
});
afterAll(async () => t?.drop());

/** A send of the recipient's March statement, queued now: its line as its last attempt records it. */
async function queue(recipientPlayerId: number, toAddress: string) {
  const statementId = await statementIdOf(t.db, marchBatch, recipientPlayerId);
  const line = { statementId, gameId: GAME, recipientPlayerId, sendId: randomUUID(), toAddress };
  await insertDeliveries(t.db, [{ ...line, status: "queued" }]);
  return { ...line, attempt: 6 };
}

const undeliverable = async (recipientPlayerId: number) =>
  (await profileFlagsOf(t.db, { gameId: GAME, batchId: marchBatch, recipientPlayerId }))
    .filter((f) => f.flag === "statement_undeliverable")
    .map((f) => f.detail);

describe("a final failure that says nothing of the address", () => {
  it("leaves a refusal of the same address standing, and the recipient's flag with it", async () => {
    const refused = await queue(901, ANNA);
    await recordFailedAttempt(t.db, { ...refused, final: true, refused: true, serverAnswer: "550 5.1.1 no such user" });
    expect(await undeliverable(901)).toEqual([expect.stringMatching(/^statement email to anna@example\.test refused/)]);

    // Sent again to the same address while the mail server is down: every attempt fails, the address is not refused.
    const outage = await queue(901, "Anna@Example.test");
    await recordFailedAttempt(t.db, { ...outage, final: true, refused: false, serverAnswer: "connect ECONNREFUSED" });
    expect(await getDeliveryFailure(t.db, { gameId: GAME, recipientPlayerId: 901 })).toMatchObject({
      refused: true,
      serverAnswer: "550 5.1.1 no such user",
    });
    expect(await undeliverable(901)).toHaveLength(1);
    // Nor is the statement offered again: sent to that address, it would be refused again.
    const owed = await listSendTargets(t.db, { gameId: GAME, batchId: marchBatch, unemailed: true });
    expect(owed.map((s) => s.statementId)).not.toContain(outage.statementId);

    // To another address, the failure is the recipient's latest: the refusal of the old address no longer stands.
    const moved = await queue(901, "anna.new@example.test");
    await recordFailedAttempt(t.db, { ...moved, final: true, refused: false, serverAnswer: "421 try later" });
    expect(await getDeliveryFailure(t.db, { gameId: GAME, recipientPlayerId: 901 })).toMatchObject({
      refused: false,
      serverAnswer: "421 try later",
    });
    expect(await undeliverable(901)).toEqual([]);
    const again = await listSendTargets(t.db, { gameId: GAME, batchId: marchBatch, unemailed: true });
    expect(again.map((s) => s.statementId)).toContain(moved.statementId);
  });
});

describe("a send overtaken by a later email of the same statement", () => {
  it("is logged and audited when given up, and marks neither the recipient nor the statement", async () => {
    const ZOE = "zoe@example.test";
    const earlier = await queue(902, ZOE);
    // A payment queues the statement's email again; that one goes out.
    const later = await queue(902, ZOE);
    await insertDeliveries(t.db, [{ ...later, status: "sent", attempt: 1 }]);
    await clearDeliveryFailure(t.db, { gameId: GAME, recipientPlayerId: 902 });
    // Then the earlier send's job, its worker gone, is given up.
    await recordSendGivenUp(t.db, { sendId: earlier.sendId, to: ZOE }, 6, "no result: the job expired");

    const log = await listStatementDeliveries(t.db, { gameId: GAME, statementId: earlier.statementId });
    expect(log.filter((d) => d.status === "failed").map((d) => d.serverAnswer)).toEqual(["no result: the job expired"]);
    expect(await getDeliveryFailure(t.db, { gameId: GAME, recipientPlayerId: 902 })).toBeNull();
    const owed = await listSendTargets(t.db, { gameId: GAME, batchId: marchBatch, unemailed: true });
    expect(owed.map((s) => s.statementId)).not.toContain(earlier.statementId);
    const audit = await t.db
      .selectFrom("audit_log")
      .select("outcome")
      .where("action", "=", "statement.delivery")
      .where("target", "=", earlier.statementId)
      .execute();
    expect(audit.map((a) => a.outcome)).toEqual(["failed"]);
  });
});
