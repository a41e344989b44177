import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { listCarryLinks } from "@/db/queries/liability";
import {
  insertPaymentReturns,
  listItemsByReference,
  listPaymentReturns,
  listRecordedResultKeys,
  type NewPaymentReturn,
  setStatementsPaymentFile,
  settleFileItems,
} from "@/db/queries/payment-flow";
import { listCarryLinksOf } from "@/db/queries/payout-ledger";
import { listSealedDetails } from "@/db/queries/profiles";
import { listSendTargets } from "@/db/queries/statement-deliveries";
import { createProfilesDatabase } from "../profiles/support";
import { GAME, web } from "../payouts/fixtures";
import type { TestDatabase } from "../support/db";
import { approvedBatch, approver } from "./support";
import { markStatementsPaid } from "@/lib/payouts/batch-approval";

/**
 * The payment queries over the lists a batch of 100,000 statements gives them: PostgreSQL refuses a statement with more
 * than 65,535 bound parameters, so a list is one parameter and many rows are written in chunks.
 */

let t: TestDatabase;
let db: Db;
let batchId: string;
const LONG = 70_000;
const uuids = Array.from({ length: LONG }, () => randomUUID());

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  db = t.db;
  batchId = await approvedBatch(db, "2026-03", { 1: "50.00" });
});
afterAll(async () => t?.drop());

describe("payment queries over 70,000 ids", () => {
  it("read and change only what the ids name", async () => {
    expect(await listRecordedResultKeys(db, uuids)).toEqual([]);
    expect(await listItemsByReference(db, { gameId: GAME, batchId, references: uuids })).toEqual([]);
    await setStatementsPaymentFile(db, { fileId: randomUUID(), statementIds: uuids });
    await settleFileItems(db, { fileId: randomUUID(), statementIds: uuids });
    expect(await listPaymentReturns(db, { gameId: GAME, statementIds: uuids })).toEqual([]);
    expect(await listCarryLinksOf(db, uuids)).toEqual([]);
    expect(await listCarryLinks(db, { gameId: GAME, fromStatementIds: uuids, asOf: new Date() })).toEqual([]);
    expect(await listSendTargets(db, { gameId: GAME, batchId, statementIds: uuids })).toEqual([]);
    const players = Array.from({ length: LONG }, (_, i) => i + 1_000_000);
    expect(await listSealedDetails(db, { gameId: GAME, playerIds: players })).toEqual([]);
  });

  it("records 5,000 returns at once (18 values each)", async () => {
    const statement = await db
      .selectFrom("payout_statement")
      .select(["id", "recipient_player_id"])
      .where("batch_id", "=", batchId)
      .executeTakeFirstOrThrow();
    const row: NewPaymentReturn = {
      gameId: GAME,
      batchId,
      statementId: statement.id,
      recipientPlayerId: statement.recipient_player_id,
      kind: "rejected",
      amountUsd: "50.00",
      reason: "AM04 insufficient funds",
      fileId: null,
      resultId: null,
      paidAt: null,
      paidOn: null,
      paymentMethod: null,
      paymentReference: null,
      paidById: null,
      actorId: null,
      actorEmail: null,
      via: "web",
      at: new Date(),
    };
    await insertPaymentReturns(
      db,
      Array.from({ length: 5000 }, () => row),
    );
    const returns = await listPaymentReturns(db, { gameId: GAME, statementIds: [statement.id] });
    expect(returns).toHaveLength(5000);
    expect(new Set(returns.map((r) => r.amountUsd))).toEqual(new Set(["50.00"]));
  });

  it("pays a statement named twice, among 5,000 other ids, once", async () => {
    const may = await approvedBatch(db, "2026-05", { 2: "30.00" });
    const { id } = await db
      .selectFrom("payout_statement")
      .select("id")
      .where("batch_id", "=", may)
      .executeTakeFirstOrThrow();
    const ids = [id, ...uuids.slice(0, 5000), id];
    const paid = await markStatementsPaid(
      db,
      { gameId: GAME, batchId: may, ids, paidOn: "2026-06-02", method: "paypal", reference: "PP-TWICE" },
      web(approver),
    );
    expect(paid).toMatchObject({ paid: 1, amountUsd: "30.00", statementIds: [id] });
    const events = await db
      .selectFrom("payout_statement_event")
      .select("kind")
      .where("statement_id", "=", id)
      .where("state_after", "=", "paid")
      .execute();
    expect(events).toHaveLength(1);
  });
});
