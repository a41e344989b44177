import { afterAll, beforeAll } from "vitest";
import type { Db } from "@/db";
import { approvePayoutBatch } from "@/lib/payouts/batch-approval";
import { approveStatements, preparePayoutBatch } from "@/lib/payouts/batches";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { changePayoutDetails, type ProfileActing } from "@/lib/profiles/profiles";
import { payoutDetailsInputSchema } from "@/lib/profiles/schemas";
import { monthWindow } from "@/lib/time";
import { GAME, insertSnapshot, web } from "../payouts/fixtures";
import { createProfilesDatabase } from "../profiles/support";
import type { TestDatabase } from "../support/db";

/** People and details the payment-flow tests share. */

export const IBAN = "DE89370400440532013000";
export const preparer = { id: "u-prep", email: "prep@payout-desk.test" };
export const approver = { id: "u-appr", email: "appr@payout-desk.test" };
export const finance: ProfileActing = { actor: preparer, role: "finance", via: "web" };

export const paypal = (email: string) =>
  payoutDetailsInputSchema.parse({ method: "paypal", currency: "USD", paypalEmail: email });
export const bank = (iban = IBAN) =>
  payoutDetailsInputSchema.parse({
    method: "bank_transfer",
    currency: "EUR",
    accountHolder: "Ada Lovelace",
    iban,
    bic: "COBADEFFXXX",
    bankCountry: "DE",
  });

/** Recipients 1, 3, 4, 5 are paid by PayPal in USD, 2 by SEPA in EUR. */
export async function seedProfiles(db: Db): Promise<void> {
  for (const id of [1, 3, 4, 5])
    await changePayoutDetails(db, { gameId: GAME, playerId: id, input: paypal(`p${id}@example.com`) }, finance);
  await changePayoutDetails(db, { gameId: GAME, playerId: 2, input: bank() }, finance);
}

/**
 * A month's batch prepared and approved (by two people), every recipient earning `gross`; the flags named in
 * `overrides` are overridden first (recipient → flag).
 */
export async function approvedBatch(
  db: Db,
  month: string,
  gross: Record<number, string>,
  overrides: [number, string][] = [],
): Promise<string> {
  await insertSnapshot(db, {
    window: month,
    recipients: Object.entries(gross).map(([id, g]) => ({ id: Number(id), gross: g })),
  });
  const { batchId } = await preparePayoutBatch(db, { gameId: GAME, window: monthWindow(month) }, web(preparer));
  for (const [recipient, flag] of overrides)
    await overrideFlag(
      db,
      { gameId: GAME, batchId, flag, recipientPlayerId: recipient, reason: "checked with the recipient by phone" },
      web(approver),
    );
  const drafts = await db
    .selectFrom("payout_statement")
    .select("id")
    .where("batch_id", "=", batchId)
    .where("state", "=", "draft")
    .execute();
  await approveStatements(db, { gameId: GAME, batchId, ids: drafts.map((d) => d.id) }, web(preparer));
  await approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver));
  return batchId;
}

/** The audit lines of the batch's attempts the two-person rule refused: what was tried, by whom. */
export async function refusedByRule(
  db: Db,
  batchId: string,
): Promise<{ action: string; actor_email: string | null }[]> {
  return db
    .selectFrom("audit_log")
    .select(["action", "actor_email"])
    .where("target", "=", batchId)
    .where("outcome", "=", "refused_two_person_rule")
    .execute();
}

export async function statesOf(db: Db, batchId: string): Promise<Record<number, string>> {
  const rows = await db
    .selectFrom("payout_statement")
    .select(["recipient_player_id", "state"])
    .where("batch_id", "=", batchId)
    .execute();
  return Object.fromEntries(rows.map((r) => [Number(r.recipient_player_id), r.state]));
}

/**
 * A database of the test file's own with the game and the payout profiles of seedProfiles, then `more` (a batch, a
 * setting), dropped after the file; `ready` is given the database first.
 */
export function setUpPaymentsDatabase(ready: (db: Db) => void, more: (db: Db) => Promise<void> = async () => {}): void {
  let t: TestDatabase | undefined;
  beforeAll(async () => {
    t = await createProfilesDatabase(GAME);
    ready(t.db);
    await seedProfiles(t.db);
    await more(t.db);
  });
  afterAll(async () => t?.drop());
}
