import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Trx } from "@/db";
import { bulkInsertSnapshotRows } from "@/db/queries/snapshot-store";
import { attributionReportBody, renewalLineBody } from "@/lib/service/__fixtures__/bodies";
import { attributionReportSchema } from "@/lib/service/schemas";
import { compareVersions, type DriftEntry } from "@/lib/snapshots/drift";
import { buildLineRows, emptyRows, type Row } from "@/lib/snapshots/rows";
import { compareLinesInDatabase } from "@/lib/snapshots/store";
import { createTestDatabase, type TestDatabase } from "../support/db";

/**
 * Publishing compares the renewal lines of two versions in the database, where both are, and reads back only the
 * lines that differ there: what it finds must be what drift's own rules find comparing the same rows in memory.
 */

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

/** Line rows as the writer builds them from the service's answer, one per period id. */
function lines(periodIds: number[], change: (line: ReturnType<typeof renewalLineBody>) => void = () => {}): Row[] {
  const body = attributionReportBody();
  const periods = periodIds.map((id) => {
    const line = { ...renewalLineBody(), period_id: id };
    change(line);
    return line;
  });
  const recipient = { ...body.recipients[0], periods };
  return buildLineRows(attributionReportSchema.parse({ ...body, recipients: [recipient] }).recipients);
}

/** Writes both versions' lines in a transaction that is rolled back, and compares them there. */
async function compared(previous: Row[], current: Row[], keep = 100) {
  const rollback = new Error("rollback");
  let result: { entries: DriftEntry[]; count: number } | null = null;
  await expect(
    t.db.transaction().execute(async (trx: Trx) => {
      const [previousId, currentId] = [randomUUID(), randomUUID()];
      await bulkInsertSnapshotRows(trx, "snapshot_line", previousId, previous);
      await bulkInsertSnapshotRows(trx, "snapshot_line", currentId, current);
      result = await compareLinesInDatabase(trx, { previousId, currentId, keep });
      throw rollback;
    }),
  ).rejects.toBe(rollback);
  if (!result) throw new Error("nothing was compared");
  return result as { entries: DriftEntry[]; count: number };
}

/** The same rows compared in memory by drift's own comparer. */
function inMemory(previous: Row[], current: Row[]): DriftEntry[] {
  return compareVersions(
    { totals: {}, rows: { ...emptyRows(), lines: previous } },
    {
      totals: {},
      rows: { ...emptyRows(), lines: current },
    },
  );
}

const bySortKey = (entries: DriftEntry[]) =>
  [...entries].sort((a, b) => `${a.entityKey}|${a.field}`.localeCompare(`${b.entityKey}|${b.field}`));

describe("renewal lines compared in the database", () => {
  it("finds nothing where the values are equal but written otherwise", async () => {
    const previous = lines([1, 2, 3]);
    const current = lines([1, 2, 3], (line) => {
      line.amount_usd = "9.990";
      line.paid_at = "2026-03-01T01:00:04+01:00";
      line.funding = Object.fromEntries(Object.entries(line.funding).reverse()) as typeof line.funding;
      // Fields drift leaves out (current or cumulative) may move after the window closed.
      line.status = "refunded";
      line.partner_revenue_usd = "0.00";
    });
    expect(inMemory(previous, current)).toEqual([]);
    expect(await compared(previous, current)).toEqual({ entries: [], count: 0 });
  });

  it("finds a changed figure, a new line and a line gone, as drift finds them in memory", async () => {
    const previous = lines([1, 2, 3, 4]);
    const current = [
      ...lines([1, 3]),
      ...lines([2], (line) => {
        line.attribution.attributed_amount_usd = "1.81";
        line.paid_at = "2026-03-02T00:00:04.250Z";
        line.funding = { ...line.funding, rail: "pcstore" };
      }),
      ...lines([5]),
    ];
    const found = await compared(previous, current);
    expect(found.count).toBe(5);
    expect(found.entries.map((e) => [e.entityKey, e.field, e.previous, e.current])).toEqual([
      ["2", "paid_at", "2026-03-01T00:00:04Z", "2026-03-02T00:00:04.250Z"],
      ["2", "attributed_amount_usd", "1.8", "1.81"],
      ["2", "funding", expect.stringContaining('"rail":"card"'), expect.stringContaining('"rail":"pcstore"')],
      ["4", "(present)", "present", "absent"],
      ["5", "(present)", "absent", "present"],
    ]);
    expect(found.entries.every((e) => e.severity === "drift" && e.entity === "line")).toBe(true);
    expect(bySortKey(found.entries)).toEqual(bySortKey(inMemory(previous, current)));
  });

  it("counts every difference of a large version but keeps only the first ones, in period order", async () => {
    const ids = Array.from({ length: 4_500 }, (_, i) => i + 1);
    const previous = lines(ids);
    const current = lines(ids, (line) => {
      line.amount_usd = "10.49";
    });
    const found = await compared(previous, current, 3);
    expect(found.count).toBe(4_500);
    expect(found.entries.map((e) => [e.entityKey, e.field, e.previous, e.current])).toEqual([
      ["1", "amount_usd", "9.99", "10.49"],
      ["2", "amount_usd", "9.99", "10.49"],
      ["3", "amount_usd", "9.99", "10.49"],
    ]);
  });
});
