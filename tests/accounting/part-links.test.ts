import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PARTS_INLINE_MAX_STATEMENTS, partLinks, windowExportLinks } from "@/app/(desk)/payouts/[window]/exports-list";
import { mapAccount } from "@/lib/accounting/accounts";
import { getPayoutBatch, type PayoutBatchSummary } from "@/lib/payouts/ledger";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { gameWithBatch } from "../exports/fixture";

/**
 * Where the window page puts a batch's Xero and QuickBooks parts: inline for a small batch, on a page of their own for
 * a big one.
 */

const GAME = "parts-a";
let t: TestDatabase;
let batch: PayoutBatchSummary;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  const statements = Array.from({ length: 90 }, (_, i) => ({
    recipientId: 3000 + i,
    name: `Recipient ${i}`,
    email: null,
    gross: "12.00",
    reversed: "0.00",
    state: "paid" as const,
  }));
  const { batchId } = await gameWithBatch(t.db, { gameId: GAME, status: "paid", statements });
  for (const account of ["expense", "payable", "clearing"] as const)
    await mapAccount(t.db, { gameId: GAME, account, code: "100", taxRate: "No GST" }, { actor: null, via: "cli" });
  batch = (await getPayoutBatch(t.db, { gameId: GAME, batchId })) as PayoutBatchSummary;
});
afterAll(async () => {
  await t?.drop();
});

const xeroOf = <T extends { kind: string }>(links: T[]) => links.filter((l) => l.kind === "journal-xero");
const quickbooksOf = <T extends { kind: string }>(links: T[]) => links.filter((l) => l.kind === "journal-quickbooks");

describe("the window's Xero and QuickBooks links", () => {
  it("lists every part, with its split, for a batch up to the limit", async () => {
    const links = await windowExportLinks(t.db, {
      gameId: GAME,
      batch,
      snapshotId: batch.snapshotId,
      statements: 90,
      href: "/payouts/2026-03",
    });
    const xero = xeroOf(links);
    expect(xero).toEqual(await partLinks(t.db, "journal-xero", { gameId: GAME, batchId: batch.id }));
    expect(xero.length).toBeGreaterThan(1);
    expect(xero.map((l) => l.label)).toContain(`Xero manual journals, part 2 of ${xero.length}`);
    // 360 rows: one QuickBooks file, its link carrying the split all the same.
    expect(quickbooksOf(links)).toEqual([
      {
        kind: "journal-quickbooks",
        label: "QuickBooks Online journal entries",
        query: expect.stringMatching(new RegExp(`^batch=${batch.id}&part=1&split=[0-9a-f]{16}&game=${GAME}$`)),
        unavailable: null,
      },
    ]);
  });

  it("links a larger batch to the page of its parts instead of splitting it on the window page", async () => {
    const links = await windowExportLinks(t.db, {
      gameId: GAME,
      batch,
      snapshotId: batch.snapshotId,
      statements: PARTS_INLINE_MAX_STATEMENTS + 1,
      href: "/payouts/2026-03",
    });
    expect(xeroOf(links)).toEqual([
      expect.objectContaining({ page: "/payouts/2026-03/parts/journal-xero", unavailable: null }),
    ]);
    expect(quickbooksOf(links)).toEqual([
      expect.objectContaining({ page: "/payouts/2026-03/parts/journal-quickbooks", unavailable: null }),
    ]);
  });
});
