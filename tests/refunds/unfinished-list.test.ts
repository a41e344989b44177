import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countRefundAttempts, insertRefundAttempt, listRefundAttempts } from "@/db/queries/refunds";
import { GAME, insertGame } from "../payouts/fixtures";
import { createTestDatabase, type TestDatabase } from "../support/db";

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  await insertGame(t.db);
});

afterAll(async () => t?.drop());

async function attempt(seq: number, status: "pending" | "needs_attention" | "succeeded", createdAt: string) {
  const row = await insertRefundAttempt(t.db, {
    gameId: GAME,
    subscriptionId: "SUB_1767225600_AB12CD34",
    periodSeq: seq,
    periodId: 1000 + seq,
    playerEmail: null,
    amountUsd: "1.00",
    remainingBeforeUsd: "9.99",
    isFull: false,
    reason: null,
    clientRequestId: `request-${seq}`,
    intentKey: `intent-${seq}`,
    actor: null,
    impact: {},
  });
  if (!row) throw new Error("attempt not inserted");
  await sql`update refund_attempt set status = ${status}, created_at = ${createdAt}::timestamptz
    where id = ${row.id}`.execute(t.db);
}

describe("the unfinished refunds of the Subscriptions page", () => {
  it("are counted in full and listed the longest waiting first, so those past the list are not lost", async () => {
    await attempt(1, "needs_attention", "2026-11-01T10:00:00Z");
    await attempt(2, "pending", "2026-11-03T10:00:00Z");
    await attempt(3, "needs_attention", "2026-11-02T10:00:00Z");
    await attempt(4, "succeeded", "2026-10-01T10:00:00Z");
    const unfinished = ["pending", "needs_attention"] as const;

    expect(await countRefundAttempts(t.db, { gameId: GAME, statuses: [...unfinished] })).toBe(3);
    const listed = await listRefundAttempts(t.db, {
      gameId: GAME,
      statuses: [...unfinished],
      limit: 2,
      oldestFirst: true,
    });
    expect(listed.map((a) => a.periodSeq)).toEqual([1, 3]);
    const latest = await listRefundAttempts(t.db, { gameId: GAME, limit: 2 });
    expect(latest.map((a) => a.periodSeq)).toEqual([2, 3]);
  });
});
