import { afterAll, beforeAll, expect } from "vitest";
import type { Db } from "@/db";
import {
  approvePayoutBatch,
  approveStatements,
  holdStatements,
  markStatementsPaid,
  preparePayoutBatch,
} from "@/lib/payouts/batches";
import { checkLedgerInvariant } from "@/lib/payouts/invariant";
import { listPayoutStatements, type PayoutStatement } from "@/lib/payouts/ledger";
import { savePayoutSettings } from "@/lib/payouts/settings";
import { monthWindow } from "@/lib/time";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { actor, GAME, insertGame, web } from "./fixtures";

/**
 * The recipient ledger over several months, with the minimum payout at 10.00:
 *
 * | recipient | Jan           | Feb                          | Mar                  | Apr              |
 * |-----------|---------------|------------------------------|----------------------|------------------|
 * | A 1001    | +50 paid 50   | +10 −40 (Jan refunds) → −30  | +20 → −10 carried    | +60 → pays 50    |
 * | B 1002    | +8 rolls over | +5 (+8 in) → pays 13         | —                    | —                |
 * | C 1003    | +30 paid 30   | −30 (Jan refunds) → −30      | +45 → pays 15        | —                |
 * | D 1004    | —             | —                            | +100 held, then paid | —                |
 */

export const preparer = actor("preparer");
export const approver = actor("approver");

/** A fresh database for the test file, with the game and a 10.00 minimum payout under the two-person rule. */
export function setUpLedgerDatabase(ready: (db: Db) => void): void {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
    ready(t.db);
    await insertGame(t.db);
    await savePayoutSettings(t.db, { twoPersonRule: true, minPayoutUsd: "10.00" }, actor("admin"));
  });
  afterAll(async () => t?.drop());
}

/** Prepares, approves and pays a month's batch (holding the recipients named), and returns its statements. */
export async function payWindow(db: Db, month: string, options: { hold?: number[] } = {}): Promise<PayoutStatement[]> {
  const { batchId } = await preparePayoutBatch(db, { gameId: GAME, window: monthWindow(month) }, web(preparer));
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
    await markStatementsPaid(
      db,
      { gameId: GAME, batchId, paidOn: `${month}-28`, method: "bank_transfer", reference: `WIRE-${month}` },
      web(approver),
    );
  }
  return listPayoutStatements(db, { gameId: GAME, batchId });
}

export async function expectInvariant(db: Db): Promise<void> {
  const report = await checkLedgerInvariant(db, { gameId: GAME });
  expect(report.violations).toEqual([]);
  expect(report.ok).toBe(true);
  expect(report.recipients).toBeGreaterThan(0);
}
