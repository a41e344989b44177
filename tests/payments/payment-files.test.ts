import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import {
  cancelPaymentFile,
  insertPaymentFile,
  listPaymentFileItems,
  listPaymentFiles,
  listPaymentResults,
  type NewPaymentFile,
  PaymentFileConflictError,
  recordPaymentResults,
} from "@/db/queries/payment-files";
import { paymentReference } from "@/lib/payments/reference";
import { preparePayoutBatch } from "@/lib/payouts/batches";
import { monthWindow } from "@/lib/time";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { actor, GAME, insertGame, insertSnapshot, web } from "../payouts/fixtures";

let t: TestDatabase;
let db: Db;
let batchId: string;
let statements: { id: string; payable_usd: string }[];

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

function fileOf(ids: { id: string; payable_usd: string }[], overrides: Partial<NewPaymentFile> = {}): NewPaymentFile {
  return {
    gameId: GAME,
    batchId,
    method: "paypal",
    fileName: "f.csv",
    part: 1,
    partCount: 1,
    currency: "USD",
    eurRate: null,
    rateSource: null,
    executionDate: null,
    sha256: sha(JSON.stringify(ids)),
    createdById: "u1",
    createdByEmail: "preparer@example.com",
    totalUsd: "1.00",
    totalAmount: "1.00",
    items: ids.map((s) => ({
      statementId: s.id,
      reference: paymentReference({ gameId: GAME, month: "2026-09", statementId: s.id }),
      amountUsd: s.payable_usd,
      amountCurrency: s.payable_usd,
      currency: "USD",
    })),
    ...overrides,
  };
}

beforeAll(async () => {
  t = await createTestDatabase();
  db = t.db;
  await insertGame(db);
  await insertSnapshot(db, {
    window: "2026-09",
    recipients: [
      { id: 1, gross: "100.00" },
      { id: 2, gross: "50.00" },
      { id: 3, gross: "70.00" },
    ],
  });
  ({ batchId } = await preparePayoutBatch(
    db,
    { gameId: GAME, window: monthWindow("2026-09") },
    web(actor("preparer")),
  ));
  statements = await db
    .selectFrom("payout_statement")
    .select(["id", "payable_usd"])
    .where("batch_id", "=", batchId)
    .where("payable_usd", ">", "0")
    .orderBy("recipient_player_id")
    .execute();
});

afterAll(async () => {
  await t?.drop();
});

describe("payment files in PostgreSQL", () => {
  it("keeps a statement out of a second live file until the first is cancelled", async () => {
    expect(statements.length).toBe(3);
    const first = await insertPaymentFile(db, fileOf(statements.slice(0, 2)));
    const items = await listPaymentFileItems(db, { gameId: GAME, fileId: first.id });
    expect(items.map((i) => i.statementId).sort()).toEqual(
      statements
        .slice(0, 2)
        .map((s) => s.id)
        .sort(),
    );

    await expect(insertPaymentFile(db, fileOf(statements.slice(1, 3)))).rejects.toThrow(PaymentFileConflictError);
    // The index itself refuses it too, whatever the caller checked.
    const item = items[0];
    await expect(
      db
        .insertInto("payment_file_item")
        .values({
          file_id: (await insertPaymentFile(db, fileOf(statements.slice(2, 3)))).id,
          file_status: "live",
          game_id: GAME,
          statement_id: item?.statementId ?? "",
          reference: "OTHER-REF",
          amount_usd: "1.00",
          amount_currency: "1.00",
          currency: "USD",
        })
        .execute(),
    ).rejects.toThrow(/payment_file_item_one_live/);

    expect(
      await cancelPaymentFile(db, { gameId: GAME, fileId: first.id, reason: "wrong rate", byEmail: "a@x" }),
    ).toEqual({ downloads: 0, lastDownloadedAt: null, lastDownloadedBy: null });
    expect(await cancelPaymentFile(db, { gameId: GAME, fileId: first.id, reason: "again", byEmail: "a@x" })).toBe(null);
    const statuses = await db
      .selectFrom("payment_file_item")
      .select("file_status")
      .where("file_id", "=", first.id)
      .execute();
    expect(statuses.map((s) => s.file_status)).toEqual(["cancelled", "cancelled"]);
    const again = await insertPaymentFile(db, fileOf(statements.slice(0, 2)));
    const files = await listPaymentFiles(db, { gameId: GAME, batchId });
    expect(files.map((f) => [f.id, f.status])).toEqual([
      [first.id, "cancelled"],
      expect.arrayContaining([expect.any(String), "live"]),
      [again.id, "live"],
    ]);
  });

  it("records each statement's provider reference once and refuses another", async () => {
    const rows = await db
      .selectFrom("payout_statement")
      .select(["id", "provider_reference"])
      .where("batch_id", "=", batchId)
      .execute();
    for (const s of statements) {
      expect(rows.find((r) => r.id === s.id)?.provider_reference).toBe(
        paymentReference({ gameId: GAME, month: "2026-09", statementId: s.id }),
      );
    }
    const live = await listPaymentFiles(db, { gameId: GAME, batchId });
    for (const f of live.filter((f) => f.status === "live")) {
      await cancelPaymentFile(db, { gameId: GAME, fileId: f.id, reason: "redo", byEmail: "a@x" });
    }
    const changed = fileOf(statements.slice(0, 1));
    changed.items[0] = { ...(changed.items[0] as NewPaymentFile["items"][number]), reference: "NOT-THE-SAME" };
    await expect(db.transaction().execute((trx) => insertPaymentFile(trx, changed))).rejects.toThrow(
      /another reference/,
    );
  });

  it("records results once: importing the same file twice changes nothing", async () => {
    const file = await insertPaymentFile(db, fileOf(statements));
    const [a, b, c] = statements.map((s) => paymentReference({ gameId: GAME, month: "2026-09", statementId: s.id }));
    const results = [
      {
        reference: a as string,
        outcome: "paid" as const,
        providerTransactionId: "T1",
        amount: "10.00",
        currency: "USD",
        fee: "0.25",
        reason: null,
        rawStatus: "SUCCESS",
      },
      {
        reference: b as string,
        outcome: "pending" as const,
        providerTransactionId: null,
        amount: null,
        currency: null,
        fee: null,
        reason: null,
        rawStatus: "UNCLAIMED",
      },
      {
        reference: c as string,
        outcome: "rejected" as const,
        providerTransactionId: "T3",
        amount: null,
        currency: null,
        fee: null,
        reason: "AC04",
        rawStatus: "RJCT",
      },
      {
        reference: "NOT-OURS-1",
        outcome: "paid" as const,
        providerTransactionId: "T9",
        amount: null,
        currency: null,
        fee: null,
        reason: null,
        rawStatus: "SUCCESS",
      },
    ];
    const params = { gameId: GAME, fileId: file.id, sourceSha256: sha("results"), results };
    expect(await recordPaymentResults(db, params)).toEqual({
      inserted: 3,
      alreadyRecorded: 0,
      unmatched: ["NOT-OURS-1"],
    });
    const before = await listPaymentResults(db, { gameId: GAME, fileId: file.id });
    expect(await recordPaymentResults(db, params)).toEqual({
      inserted: 0,
      alreadyRecorded: 3,
      unmatched: ["NOT-OURS-1"],
    });
    expect(await listPaymentResults(db, { gameId: GAME, fileId: file.id })).toEqual(before);
    expect(before.map((r) => [r.reference, r.outcome, r.fee])).toEqual([
      [a, "paid", "0.25"],
      [b, "pending", null],
      [c, "rejected", null],
    ]);
    // A later status for the same payment is a new result.
    const later = {
      ...params,
      results: [{ ...results[1], outcome: "paid" as const, providerTransactionId: "T2", rawStatus: "SUCCESS" }],
    };
    expect((await recordPaymentResults(db, later as typeof params)).inserted).toBe(1);
  });
});
