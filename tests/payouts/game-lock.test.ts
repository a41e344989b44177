import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { lockPayoutsOfGame } from "@/db/queries/payout-batches";
import { approveStatements } from "@/lib/payouts/batches";
import { PAYOUT_LOCK_WAIT, PAYOUTS_BUSY } from "@/lib/payouts/game-lock";
import { listPayoutStatements } from "@/lib/payouts/ledger";
import { GAME, insertSnapshot, web } from "./fixtures";
import { approver, prepareMonth, setUpPayoutsDatabase } from "../support/payouts";

/**
 * Every payout change of a game takes the game's lock; one that waits longer than PAYOUT_LOCK_WAIT for another change
 * (a large results import, say) is refused with what to do, nothing changed, instead of keeping the person waiting.
 */

let db: Db;
setUpPayoutsDatabase((t) => {
  db = t.db;
});

describe("the game's payout lock", () => {
  it("refuses a change that waited too long for another, changing nothing; the next one goes through", async () => {
    await insertSnapshot(db, { window: "2026-04", recipients: [{ id: 4101, gross: "20.00" }] });
    const { batchId } = await prepareMonth(db, "2026-04");
    const approve = () => approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(approver));
    const waited = PAYOUT_LOCK_WAIT.ms;
    PAYOUT_LOCK_WAIT.ms = 300;
    let outcome: unknown;
    try {
      await db.transaction().execute(async (trx) => {
        // Another change of the game is under way and holds it past the wait.
        expect(await lockPayoutsOfGame(trx, GAME, 1_000)).toBe(true);
        outcome = await approve().then(
          (done) => done,
          (error: unknown) => error,
        );
      });
    } finally {
      PAYOUT_LOCK_WAIT.ms = waited;
    }
    expect(outcome).toMatchObject({ code: "CONFLICT", message: PAYOUTS_BUSY });
    const states = async () => (await listPayoutStatements(db, { gameId: GAME, batchId })).map((s) => s.state);
    expect(await states()).toEqual(["draft"]);
    // Once the other change has ended, the same change is made, and the transaction's lock wait is its own again.
    await approve();
    expect(await states()).toEqual(["approved"]);
    await db.transaction().execute(async (trx) => {
      expect(await lockPayoutsOfGame(trx, GAME, 1_000)).toBe(true);
      const { rows } = await sql<{ lock_timeout: string }>`show lock_timeout`.execute(trx);
      expect(rows[0]?.lock_timeout).toBe("0");
    });
  });
});
