import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { preparePayoutBatch } from "@/lib/payouts/batches";
import { monthWindow } from "@/lib/time";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { addGame, insertBatch, insertSnapshot } from "../exports/fixture";

/**
 * A recipient absent from a window's snapshot still gets a statement for what they carry, when it reaches the
 * minimum: named and addressed as the latest of the statements it carries from says, whatever order PostgreSQL
 * keeps those rows in (a statement is updated in place when it is carried or paid, which moves it).
 */

const GAME = "carry-only";
const RECIPIENT = 900;
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, GAME);
});
afterAll(async () => {
  await t?.drop();
});

async function monthWithCarry(month: string, end: string, gross: string, who: { email: string; name: string }) {
  const window = monthWindow(month);
  const snapshotId = await insertSnapshot(t.db, {
    gameId: GAME,
    start: new Date(window.startMs).toISOString(),
    end,
    recipients: [],
    lines: [],
  });
  await insertBatch(t.db, {
    gameId: GAME,
    snapshotId,
    status: "paid",
    statements: [{ recipientId: RECIPIENT, ...who, gross, reversed: "0.00", state: "carried" }],
  });
}

describe("a statement of carried balances alone", () => {
  it("[finance] names the recipient as their latest carried statement does", async () => {
    // April's written before March's (as carrying or paying March later would leave them): first in the table.
    await monthWithCarry("2026-04", "2026-05-01T00:00:00Z", "7.00", { email: "new@example.test", name: "New Name" });
    await monthWithCarry("2026-03", "2026-04-01T00:00:00Z", "6.00", { email: "old@example.test", name: "Old Name" });
    await insertSnapshot(t.db, {
      gameId: GAME,
      start: "2026-05-01T00:00:00Z",
      end: "2026-06-01T00:00:00Z",
      recipients: [],
      lines: [],
    });
    const prepared = await preparePayoutBatch(
      t.db,
      { gameId: GAME, window: monthWindow("2026-05") },
      { actor: { id: "u1", email: "preparer@example.test" }, via: "cli" },
    );
    const statement = await t.db
      .selectFrom("payout_statement")
      .select(["in_snapshot", "player_email", "player_name", "carried_in_usd", "payable_usd"])
      .where("batch_id", "=", prepared.batchId)
      .where("recipient_player_id", "=", String(RECIPIENT))
      .executeTakeFirstOrThrow();
    expect(statement).toEqual({
      in_snapshot: false,
      player_email: "new@example.test",
      player_name: "New Name",
      carried_in_usd: "13.00",
      payable_usd: "13.00",
    });
  });
});
