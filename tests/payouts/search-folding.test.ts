import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { listPayoutTable, searchRecipients } from "@/db/queries/payouts";
import { listRecipientPayouts } from "@/db/queries/snapshot-recipients";
import { prepareMonth, setUpPayoutsDatabase } from "../support/payouts";
import { actor, GAME, insertSnapshot, web } from "./fixtures";

/**
 * A recipient is found by name in any case, letters outside A–Z included, on every search: the test database, like the
 * embedded one, is made with the C locale, whose `lower()` folds A–Z only.
 */

let db: Db;
let snapshotId: string;
let batchId: string;

setUpPayoutsDatabase((t) => {
  db = t.db;
});
beforeAll(async () => {
  const recipients = [
    { id: 700_001, gross: "10.00", name: "Émilie Durand" },
    { id: 700_002, gross: "11.00", name: "ÇAĞLAR YILMAZ" },
    { id: 700_003, gross: "12.00", name: "émile zola" },
    { id: 700_004, gross: "13.00", name: "Мария Иванова" },
    { id: 700_005, gross: "14.00", name: "Emil Nolde" },
    { id: 700_006, gross: "15.00", name: "KIZILTAŞ YILDIZ" },
  ];
  const snapshot = await insertSnapshot(db, { window: "2026-05", recipients });
  snapshotId = snapshot.id;
  batchId = (await prepareMonth(db, "2026-05", web(actor("preparer")))).batchId;
});

const CASES: [string, number[]][] = [
  ["émil", [700_001, 700_003]],
  ["ÉMIL", [700_001, 700_003]],
  ["Émilie d", [700_001]],
  ["çağlar", [700_002]],
  ["ÇağLAR y", [700_002]],
  ["мария", [700_004]],
  ["МАРИЯ И", [700_004]],
  ["emil", [700_005]],
  ["kızıltaş", [700_006]],
];

describe("recipient search by name", () => {
  it.each(CASES)("finds %s in the window's table, the batch's table and the Recipients page", async (q, expected) => {
    const table = { gameId: GAME, snapshotId, sort: "net", dir: "asc", q, page: 1, pageSize: 50 } as const;
    const inWindow = await listPayoutTable(db, table);
    const inBatch = await listPayoutTable(db, { ...table, batchId });
    const inSnapshot = await listRecipientPayouts(db, { gameId: GAME, snapshotId, q, page: 1, pageSize: 50 });
    const found = await searchRecipients(db, { gameId: GAME, q });
    const ids = (rows: { recipientPlayerId: number }[]) => rows.map((r) => r.recipientPlayerId).sort();
    expect(ids(inWindow.rows)).toEqual(expected);
    expect(ids(inBatch.rows)).toEqual(expected);
    expect(ids(inSnapshot.rows)).toEqual(expected);
    expect(ids(found.rows)).toEqual(expected);
  });
});
