import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { listStatementStatesAt } from "@/db/queries/liability";
import { listLiability } from "@/lib/payouts/liability";
import { payWindow, prepareMonth, recipientStatement, settleBatch, setUpPayoutsDatabase } from "../support/payouts";
import { GAME, insertSnapshot } from "./fixtures";

/**
 * The liability leaves out the statements closed for good by its day (paid, or carried with nothing carried out, and
 * unchanged since): most of a game's history. A balance carried into one of them is still read as paid out there.
 */

let db: Db;
setUpPayoutsDatabase((t) => {
  db = t.db;
});

const justAfter = () => new Date(Date.now() + 1000);

describe("liability over statements closed for good", () => {
  it("reads only the statements that can count, and a balance taken into a paid one is not owed", async () => {
    // August: recipient 7 earns under the 10.00 minimum, rolled over; recipient 8 is paid.
    await insertSnapshot(db, {
      window: "2026-08",
      recipients: [
        { id: 7, gross: "3.00" },
        { id: 8, gross: "40.00" },
      ],
    });
    let approvedAt = new Date(0);
    const august = await settleBatch(
      db,
      { ...(await prepareMonth(db, "2026-08")), month: "2026-08" },
      {},
      async (step) => {
        if (step === "batch approved") approvedAt = new Date();
      },
    );
    const rolled = recipientStatement(august, 7);
    expect(rolled).toMatchObject({ state: "carried", carryOutUsd: "3.00" });
    expect((await listLiability(db, { gameId: GAME, asOf: justAfter() })).rows).toMatchObject([
      { recipientPlayerId: 7, carriedUsd: "3.00", totalOwedUsd: "3.00" },
    ]);

    // September takes the 3.00 in and pays it with the month's 20.00.
    await insertSnapshot(db, { window: "2026-09", recipients: [{ id: 7, gross: "20.00" }] });
    const september = await payWindow(db, "2026-09");
    expect(recipientStatement(september, 7)).toMatchObject({
      state: "paid",
      carriedInUsd: "3.00",
      carryOutUsd: "0.00",
    });

    const asOf = justAfter();
    // Of the three statements, only August's rolled-over one is read; the paid ones are closed for good.
    const read = await listStatementStatesAt(db, { gameId: GAME, asOf });
    expect(read.map((s) => s.statementId)).toEqual([rolled.id]);
    // Its balance went out with September's payment: nothing is owed.
    expect((await listLiability(db, { gameId: GAME, asOf })).rows).toEqual([]);

    // As of a moment before August was paid, its paid statement is read again, in its state then.
    const then = await listStatementStatesAt(db, { gameId: GAME, asOf: approvedAt });
    expect(then.map((s) => [s.statementId, s.state]).sort()).toEqual(
      [
        [rolled.id, "carried"],
        [recipientStatement(august, 8).id, "approved"],
      ].sort(),
    );
    expect((await listLiability(db, { gameId: GAME, asOf: approvedAt })).rows).toMatchObject([
      { recipientPlayerId: 8, approvedUnpaidUsd: "40.00" },
      { recipientPlayerId: 7, carriedUsd: "3.00" },
    ]);
  });
});
