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
    await savePayoutSettings(
      t.db,
      { twoPersonRule: true, minPayoutUsd: "10.00" },
      { actor: actor("admin"), via: "web" },
    );
  });
  afterAll(async () => t?.drop());
}

/** The statement of a recipient among a batch's statements. */
export function recipientStatement(statements: PayoutStatement[], recipient: number): PayoutStatement {
  const s = statements.find((x) => x.recipientPlayerId === recipient);
  if (!s) throw new Error(`no statement for ${recipient}`);
  return s;
}

/** Prepares the game's batch of a month (`2026-04`). */
export function prepareMonth(db: Db, month: string, acting: ActingAs = web(preparer)): Promise<{ batchId: string }> {
  return preparePayoutBatch(db, { gameId: GAME, window: monthWindow(month) }, acting);
}

export type SettleStep = "held" | "approved" | "batch approved" | "paid";

export type SettlePlan = {
  /** Recipients whose statements are held first (none when absent or empty). */
  hold?: number[];
  holdReason?: string;
  /** Recipients whose statements the preparer approves; every draft statement without flags when absent. */
  approve?: number[];
  /** How the batch is paid; on the 28th of the batch's month by bank transfer when absent. */
  paid?: { on: string; method: PaymentMethod; reference: string };
};

/**
 * Takes a prepared batch of a month through the workflow: holds, approves statements (the preparer), approves the
 * batch and pays it when anything in it is approved (the approver), calling `after` once each step is done. Returns
 * the batch's statements.
 */
export async function settleBatch(
  db: Db,
  batch: { batchId: string; month: string },
  plan: SettlePlan = {},
  after: (step: SettleStep) => Promise<void> = async () => {},
): Promise<PayoutStatement[]> {
  const { batchId, month } = batch;
  let statements = await listPayoutStatements(db, { gameId: GAME, batchId });
  const idsOf = (recipients: number[]) =>
    statements.filter((s) => recipients.includes(s.recipientPlayerId)).map((s) => s.id);
  if (plan.hold?.length) {
    const reason = plan.holdReason ?? "Tax form missing";
    await holdStatements(db, { gameId: GAME, batchId, ids: idsOf(plan.hold), reason }, web(preparer));
    await after("held");
  }
  const approving = plan.approve ? { ids: idsOf(plan.approve) } : { all: "draft_unflagged" as const };
  await approveStatements(db, { gameId: GAME, batchId, ...approving }, web(preparer));
  await after("approved");
  await approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver));
  await after("batch approved");
  statements = await listPayoutStatements(db, { gameId: GAME, batchId });
  if (statements.some((s) => s.state === "approved")) {
    const paid = plan.paid ?? { on: `${month}-28`, method: "bank_transfer" as const, reference: `WIRE-${month}` };
    await markStatementsPaid(
      db,
      { gameId: GAME, batchId, paidOn: paid.on, method: paid.method, reference: paid.reference },
      web(approver),
    );
    await after("paid");
  }
  return listPayoutStatements(db, { gameId: GAME, batchId });
}

/** Prepares a month's batch (`2026-04`) and settles it (see settleBatch), returning its statements. */
export async function payWindow(db: Db, month: string, plan: SettlePlan = {}): Promise<PayoutStatement[]> {
  const { batchId } = await prepareMonth(db, month);
  return settleBatch(db, { batchId, month }, plan);
}
