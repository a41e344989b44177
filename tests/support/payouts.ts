import { afterAll, beforeAll } from "vitest";
import type { ActingAs } from "@/core/actor";
import type { Db } from "@/db";
import {
  approvePayoutBatch,
  approveStatements,
  holdStatements,
  markStatementsPaid,
  type PaymentMethod,
  preparePayoutBatch,
} from "@/lib/payouts/batches";
import { listPayoutStatements, type PayoutStatement } from "@/lib/payouts/ledger";
import { savePayoutSettings } from "@/lib/payouts/settings";
import { monthWindow } from "@/lib/time";
import { actor, GAME, insertGame, web } from "../payouts/fixtures";
import { createTestDatabase, type TestDatabase } from "./db";

/**
 * The payout workflow's common ground for a test file: a fresh database holding the game with a 10.00 minimum payout
 * under the two-person rule, the preparer and approver who take turns in it, and the steps from a month's snapshot to
 * a paid batch.
 */

export const preparer = actor("preparer");
export const approver = actor("approver");

/**
 * A fresh database for the test file, handed to `ready` before anything is written to it, with the game (and any
 * other games named) and the payout settings. Hooks registered after this call run once it is set up.
 */
export function setUpPayoutsDatabase(ready: (database: TestDatabase) => void, options: { games?: string[] } = {}) {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
    ready(t);
    await insertGame(t.db);
    for (const game of options.games ?? []) await insertGame(t.db, game);
    await savePayoutSettings(t.db, { twoPersonRule: true, minPayoutUsd: "10.00" }, actor("admin"));
  });
  afterAll(async () => t?.drop());
}

/** Prepares the game's batch of a month (`2026-04`). */
export function prepareMonth(db: Db, month: string, acting: ActingAs = web(preparer)): Promise<{ batchId: string }> {
  return preparePayoutBatch(db, { gameId: GAME, window: monthWindow(month) }, acting);
}

/**
 * Prepares, approves and pays a month's batch (holding the recipients named), and returns its statements. It is paid
 * on the 28th of the month by bank transfer unless `paid` says otherwise.
 */
export async function payWindow(
  db: Db,
  month: string,
  options: { hold?: number[]; paid?: { on: string; method: PaymentMethod; reference: string } } = {},
): Promise<PayoutStatement[]> {
  const { batchId } = await prepareMonth(db, month);
  let statements = await listPayoutStatements(db, { gameId: GAME, batchId });
  const held = statements.filter((s) => options.hold?.includes(s.recipientPlayerId));
  if (held.length > 0)
    await holdStatements(
      db,
      { gameId: GAME, batchId, ids: held.map((s) => s.id), reason: "Tax form missing" },
      web(preparer),
    );
  await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer));
  await approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver));
  statements = await listPayoutStatements(db, { gameId: GAME, batchId });
  if (statements.some((s) => s.state === "approved")) {
    const paid = options.paid ?? { on: `${month}-28`, method: "bank_transfer" as const, reference: `WIRE-${month}` };
    await markStatementsPaid(
      db,
      { gameId: GAME, batchId, paidOn: paid.on, method: paid.method, reference: paid.reference },
      web(approver),
    );
  }
  return listPayoutStatements(db, { gameId: GAME, batchId });
}
