import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { preparePayoutBatch } from "@/lib/payouts/batches";
import { listLiability, uncountedMonths } from "@/lib/payouts/liability";
import { monthWindow } from "@/lib/time";
import { setUpPayoutsDatabase } from "../support/payouts";
import { actor, GAME, insertSnapshot, web } from "./fixtures";

/**
 * A batch of a window not ended by the day counts nothing, so a window that had ended and that it overlaps is still
 * owed from its own latest snapshot: March, beside a batch of 15 March to 15 April prepared early.
 */

let db: Db;
const endOfDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000);
const dayStart = (day: string) => Date.parse(`${day}T00:00:00Z`);

setUpPayoutsDatabase((t) => {
  db = t.db;
});

/** A batch of a window read before its end, prepared on the day given (written back: the product never dates one). */
async function preparedEarly(window: { startMs: number; endMs: number }, on: string, recipient: number, gross: string) {
  await insertSnapshot(db, {
    window,
    recipients: [{ id: recipient, gross }],
    closed: false,
    fetchStartedAt: new Date(`${on}T08:00:00Z`),
  });
  const { batchId } = await preparePayoutBatch(db, { gameId: GAME, window }, web(actor("preparer")));
  await sql`update payout_batch set prepared_at = ${`${on}T09:00:00Z`}::timestamptz where id = ${batchId}`.execute(db);
}

describe("the liability beside a batch of a window not ended by the day", () => {
  it("counts an ended month the batch overlaps from its snapshot, and only the batch once it ends", async () => {
    await insertSnapshot(db, {
      window: "2026-03",
      recipients: [
        { id: 1, gross: "300.00" },
        { id: 2, gross: "40.00" },
      ],
    });
    await preparedEarly({ startMs: dayStart("2026-03-15"), endMs: dayStart("2026-04-15") }, "2026-03-20", 1, "120.00");

    const asOf = endOfDay("2026-03-31");
    const { rows, windows } = await listLiability(db, { gameId: GAME, asOf });
    expect(rows.map((r) => [r.recipientPlayerId, r.notInBatchUsd, r.draftUsd, r.totalOwedUsd])).toEqual([
      [1, "300.00", "0.00", "300.00"],
      [2, "40.00", "0.00", "40.00"],
    ]);
    expect(windows).toEqual([
      { window: monthWindow("2026-03"), source: "snapshot", snapshotVersion: 1, readBeforeEnd: false },
    ]);
    expect(uncountedMonths(windows, asOf)).not.toContain("2026-03");

    // Once the batch's window has ended, its draft counts and March is not counted again beside it.
    const later = await listLiability(db, { gameId: GAME, asOf: new Date(Date.now() + 1000) });
    expect(later.rows.map((r) => [r.recipientPlayerId, r.draftUsd, r.totalOwedUsd])).toEqual([[1, "120.00", "120.00"]]);
    expect(later.windows.map((w) => w.source)).toEqual(["batch"]);
  });

  it("counts an ended custom window that the month's early batch overlaps", async () => {
    const custom = { startMs: dayStart("2026-05-01"), endMs: dayStart("2026-05-21") };
    await insertSnapshot(db, { window: custom, recipients: [{ id: 3, gross: "75.00" }] });
    await preparedEarly(monthWindow("2026-05"), "2026-05-10", 3, "30.00");
    const { rows, windows } = await listLiability(db, { gameId: GAME, asOf: endOfDay("2026-05-25") });
    expect(rows.map((r) => [r.recipientPlayerId, r.notInBatchUsd, r.totalOwedUsd])).toEqual([[3, "75.00", "75.00"]]);
    // (The March-April batch of the test above has ended by then: it counts as a batch, its statements not yet made.)
    expect(windows.find((w) => w.window.endMs === custom.endMs)).toMatchObject({ source: "snapshot" });
    expect(windows.some((w) => w.window.endMs === monthWindow("2026-05").endMs)).toBe(false);
  });
});
