import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { iteratePayoutStatements } from "@/lib/payouts/statements";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { gameWithBatch } from "../exports/fixture";

/** A batch read page by page (keyed by recipient alone): every statement once, in recipient order, across pages. */

let t: TestDatabase;
let batchId: string;
const RECIPIENTS = Array.from({ length: 23 }, (_, i) => 9000 - i * 37);

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  const statements = RECIPIENTS.map((recipientId) => ({
    recipientId,
    name: null,
    email: null,
    gross: "11.00",
    reversed: "0.00",
    state: "approved" as const,
  }));
  ({ batchId } = await gameWithBatch(t.db, { gameId: "pages-a", status: "approved", statements }));
  // A batch of another game is never read into this one.
  await gameWithBatch(t.db, { gameId: "pages-b", status: "approved", statements: statements.slice(0, 5) });
});
afterAll(async () => {
  await t?.drop();
});

describe("reading a batch's statements by pages", () => {
  it("gives each statement once, by recipient, whatever the page size", async () => {
    for (const pageSize of [1, 5, 23, 100]) {
      const seen: number[] = [];
      for await (const s of iteratePayoutStatements(t.db, { gameId: "pages-a", batchId, pageSize }))
        seen.push(s.recipientPlayerId);
      expect(seen).toEqual([...RECIPIENTS].sort((a, b) => a - b));
    }
  });
});
