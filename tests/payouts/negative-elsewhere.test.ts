import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { approvePayoutBatch, discardPayoutBatch } from "@/lib/payouts/batch-approval";
import { approveStatements, holdStatements } from "@/lib/payouts/batches";
import { openFlagsOf, readBatchFlags } from "@/lib/payouts/flags";
import { listPayoutStatements } from "@/lib/payouts/ledger";
import { GAME, insertSnapshot, web } from "./fixtures";
import {
  approver,
  payWindow,
  preparer,
  prepareMonth,
  recipientStatement as byRecipient,
  settleBatch,
  setUpPayoutsDatabase,
} from "../support/payouts";

let db: Db;
setUpPayoutsDatabase((t) => {
  db = t.db;
});

const R = 1001;

async function openFlagsOfRecipient(batchId: string, recipient: number) {
  const statements = await listPayoutStatements(db, { gameId: GAME, batchId });
  const statement = byRecipient(statements, recipient);
  const flags = await readBatchFlags(db, { gameId: GAME, batchId, snapshotId: statement.snapshotId });
  return { statement, open: openFlagsOf(flags, recipient, statement.recipientFlags) };
}

describe("a recipient's negative balance that another batch holds", () => {
  it("keeps a later window from paying them in full until the balance is taken in", async () => {
    await insertSnapshot(db, { window: "2026-02", recipients: [{ id: R, gross: "0.00", reversed: "40.00" }] });
    await insertSnapshot(db, {
      window: "2026-03",
      recipients: [
        { id: R, gross: "10.00" },
        { id: 1002, gross: "20.00" },
      ],
    });
    await insertSnapshot(db, {
      window: "2026-04",
      recipients: [
        { id: R, gross: "60.00" },
        { id: 1002, gross: "15.00" },
      ],
    });
    const february = await payWindow(db, "2026-02");
    expect(byRecipient(february, R)).toMatchObject({ state: "carried", carryOutUsd: "-40.00" });

    // March takes the −40.00 in and stays a draft (−30.00 available); April is prepared meanwhile and sees no carry.
    const march = await prepareMonth(db, "2026-03");
    const april = await prepareMonth(db, "2026-04");
    const marchStatement = byRecipient(await listPayoutStatements(db, { gameId: GAME, batchId: march.batchId }), R);
    expect(marchStatement).toMatchObject({ state: "draft", availableUsd: "-30.00" });
    const drafted = await openFlagsOfRecipient(april.batchId, R);
    expect(drafted.statement).toMatchObject({ carriedInUsd: "0.00", payableUsd: "60.00" });
    expect(drafted.open).toEqual([
      expect.objectContaining({
        flag: "negative_balance_elsewhere",
        cause: `negative_balance:${marchStatement.id}:-30.00`,
        detail: expect.stringContaining("March 2026 statement, whose batch is not approved yet"),
      }),
    ]);
    // Approving April's unflagged statements leaves the recipient out; the other recipient owes nothing.
    await approveStatements(db, { gameId: GAME, batchId: april.batchId, all: "draft_unflagged" }, web(preparer));
    const approving = await listPayoutStatements(db, { gameId: GAME, batchId: april.batchId });
    expect(byRecipient(approving, R).state).toBe("draft");
    expect(byRecipient(approving, 1002).state).toBe("approved");
    await expect(
      approveStatements(db, { gameId: GAME, batchId: april.batchId, ids: [drafted.statement.id] }, web(preparer)),
    ).resolves.toMatchObject({ changed: 0 });
    // March's statements approved, its batch not yet: the balance is still March's, and April's flag stays.
    await approveStatements(db, { gameId: GAME, batchId: march.batchId, all: "draft_unflagged" }, web(preparer));
    const marchApproved = await listPayoutStatements(db, { gameId: GAME, batchId: march.batchId });
    expect(byRecipient(marchApproved, R).state).toBe("approved");
    const flagsOf = async () => (await openFlagsOfRecipient(april.batchId, R)).open.map((f) => f.flag);
    expect(await flagsOf()).toEqual(["negative_balance_elsewhere"]);
    // Held, it stays flagged: released, it would otherwise be paid in full.
    const hold = { gameId: GAME, batchId: april.batchId, ids: [drafted.statement.id], reason: "waiting for March" };
    await holdStatements(db, hold, web(preparer));
    expect(await flagsOf()).toEqual(["negative_balance_elsewhere"]);

    // March approved: its −30.00 is carried forward, taken in by no statement yet; April still owes it a look.
    await settleBatch(db, { batchId: march.batchId, month: "2026-03" });
    const carried = await openFlagsOfRecipient(april.batchId, R);
    expect(carried.open.map((f) => [f.flag, f.cause])).toEqual([
      ["negative_balance_elsewhere", `negative_balance:${marchStatement.id}:-30.00`],
    ]);
    expect(carried.open[0]?.detail).toContain("carried forward from the March 2026 statement");

    // Prepared again, April takes the balance in and pays what is left.
    await discardPayoutBatch(
      db,
      { gameId: GAME, batchId: april.batchId, reason: "take March's balance in" },
      web(approver),
    );
    const again = await prepareMonth(db, "2026-04");
    const taken = await openFlagsOfRecipient(again.batchId, R);
    expect(taken.statement).toMatchObject({ carriedInUsd: "-30.00", payableUsd: "30.00" });
    expect(taken.open).toEqual([]);
    await approveStatements(db, { gameId: GAME, batchId: again.batchId, all: "draft_unflagged" }, web(preparer));
    await approvePayoutBatch(db, { gameId: GAME, batchId: again.batchId }, web(approver));
  });
});
