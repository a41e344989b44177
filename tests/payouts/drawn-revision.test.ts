import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import {
  approvePayoutBatch,
  approveStatements,
  holdStatements,
  markStatementsPaid,
  releaseStatements,
} from "@/lib/payouts/batches";
import { listPayoutStatements } from "@/lib/payouts/ledger";
import { getPayoutBatch } from "@/lib/payouts/statements";
import { GAME, insertSnapshot, web } from "./fixtures";
import { approver, prepareMonth, preparer, recipientStatement, setUpPayoutsDatabase } from "../support/payouts";

let db: Db;
setUpPayoutsDatabase((t) => {
  db = t.db;
});

async function revisionOf(batchId: string): Promise<string> {
  const batch = await getPayoutBatch(db, { gameId: GAME, batchId });
  if (!batch) throw new Error("no batch");
  return batch.revision;
}

describe("approving and paying what the page showed", () => {
  it("refuses approving a batch that changed after the page was drawn, and approves it as drawn again", async () => {
    await insertSnapshot(db, {
      window: "2026-03",
      recipients: [
        { id: 7101, gross: "30.00" },
        { id: 7102, gross: "40.00" },
      ],
    });
    const { batchId } = await prepareMonth(db, "2026-03");
    const statements = await listPayoutStatements(db, { gameId: GAME, batchId });
    const held = recipientStatement(statements, 7102).id;
    await holdStatements(db, { gameId: GAME, batchId, ids: [held], reason: "Tax form missing" }, web(preparer));
    await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer));
    // The approver's page: 1 approved (USD 30.00), 1 held.
    const drawn = await revisionOf(batchId);
    // The preparer releases the held statement and approves it before the approver confirms.
    await releaseStatements(db, { gameId: GAME, batchId, ids: [held], reason: "Form received" }, web(preparer));
    await approveStatements(db, { gameId: GAME, batchId, ids: [held] }, web(preparer));
    await expect(
      approvePayoutBatch(db, { gameId: GAME, batchId, drawnAtRevision: drawn }, web(approver)),
    ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/changed after this page was drawn/) });
    expect((await getPayoutBatch(db, { gameId: GAME, batchId }))?.status).toBe("draft");
    // Drawn again, the approver sees 2 approved (USD 70.00) and approves that.
    await expect(
      approvePayoutBatch(db, { gameId: GAME, batchId, drawnAtRevision: await revisionOf(batchId) }, web(approver)),
    ).resolves.toMatchObject({ approved: 2, held: 0, payableUsd: "70.00" });
  });

  it("records payment only of the approved statements the page showed, refusing when they changed", async () => {
    await insertSnapshot(db, {
      window: "2026-04",
      recipients: [
        { id: 7201, gross: "30.00" },
        { id: 7202, gross: "40.00" },
        { id: 7203, gross: "50.00" },
      ],
    });
    const { batchId } = await prepareMonth(db, "2026-04");
    await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer));
    await approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver));
    const statements = await listPayoutStatements(db, { gameId: GAME, batchId });
    const drawn = await revisionOf(batchId);
    // Someone holds one approved statement after the page showed three to pay.
    const moved = recipientStatement(statements, 7203).id;
    await holdStatements(db, { gameId: GAME, batchId, ids: [moved], reason: "Bank details queried" }, web(preparer));
    const payment = { paidOn: "2026-04-28", method: "bank_transfer" as const, reference: "WIRE-0428" };
    await expect(
      markStatementsPaid(db, { gameId: GAME, batchId, ...payment, drawnAtRevision: drawn }, web(approver)),
    ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/changed after this page was drawn/) });
    const after = await listPayoutStatements(db, { gameId: GAME, batchId });
    expect(after.filter((s) => s.state === "paid")).toHaveLength(0);
    await expect(
      markStatementsPaid(
        db,
        { gameId: GAME, batchId, ...payment, drawnAtRevision: await revisionOf(batchId) },
        web(approver),
      ),
    ).resolves.toMatchObject({ paid: 2, amountUsd: "70.00" });
    const paid = await listPayoutStatements(db, { gameId: GAME, batchId });
    expect(recipientStatement(paid, 7203).state).toBe("held");
    expect(
      paid
        .filter((s) => s.state === "paid")
        .map((s) => s.recipientPlayerId)
        .sort(),
    ).toEqual([7201, 7202]);
  });

  it("refuses statements chosen as paid when one moved since the page was drawn, recording none", async () => {
    await insertSnapshot(db, {
      window: "2026-05",
      recipients: [
        { id: 7301, gross: "30.00" },
        { id: 7302, gross: "40.00" },
        { id: 7303, gross: "50.00" },
      ],
    });
    const { batchId } = await prepareMonth(db, "2026-05");
    await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer));
    await approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver));
    const statements = await listPayoutStatements(db, { gameId: GAME, batchId });
    const chosen = [7301, 7302, 7303].map((id) => recipientStatement(statements, id).id);
    // A colleague records one paid and holds another while the first person pays all three outside the desk.
    const colleague = { paidOn: "2026-05-28", method: "bank_transfer" as const, reference: "WIRE-B" };
    await markStatementsPaid(db, { gameId: GAME, batchId, ids: [chosen[0] as string], ...colleague }, web(preparer));
    await holdStatements(
      db,
      { gameId: GAME, batchId, ids: [chosen[1] as string], reason: "Bank queried" },
      web(preparer),
    );
    const payment = { paidOn: "2026-05-28", method: "bank_transfer" as const, reference: "WIRE-A" };
    await expect(
      markStatementsPaid(db, { gameId: GAME, batchId, ids: chosen, ...payment }, web(approver)),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(
        /^Nothing was recorded: statements chosen changed since this page was drawn \(7301 recorded paid; 7302 held\)/,
      ),
    });
    const after = await listPayoutStatements(db, { gameId: GAME, batchId });
    expect(after.map((s) => [s.recipientPlayerId, s.state]).sort()).toEqual([
      [7301, "paid"],
      [7302, "held"],
      [7303, "approved"],
    ]);
    await expect(
      markStatementsPaid(db, { gameId: GAME, batchId, ids: [chosen[2] as string], ...payment }, web(approver)),
    ).resolves.toMatchObject({ paid: 1, amountUsd: "50.00" });
  });

  it("approves all unflagged drafts only as the page showed them: a hold released since is refused", async () => {
    await insertSnapshot(db, {
      window: "2026-06",
      recipients: [
        { id: 7401, gross: "30.00" },
        { id: 7402, gross: "40.00" },
      ],
    });
    const { batchId } = await prepareMonth(db, "2026-06");
    const held = recipientStatement(await listPayoutStatements(db, { gameId: GAME, batchId }), 7402).id;
    await holdStatements(db, { gameId: GAME, batchId, ids: [held], reason: "IBAN disputed" }, web(preparer));
    // The page shows 7402 held; a colleague releases it before "Approve all unflagged" is confirmed.
    const drawn = await revisionOf(batchId);
    await releaseStatements(db, { gameId: GAME, batchId, ids: [held], reason: "IBAN confirmed" }, web(approver));
    const all = { gameId: GAME, batchId, all: "draft_unflagged" as const };
    await expect(approveStatements(db, { ...all, drawnAtRevision: drawn }, web(preparer))).rejects.toMatchObject({
      code: "CONFLICT",
    });
    expect((await listPayoutStatements(db, { gameId: GAME, batchId })).map((s) => s.state).sort()).toEqual([
      "draft",
      "draft",
    ]);
    await expect(
      approveStatements(db, { ...all, drawnAtRevision: await revisionOf(batchId) }, web(preparer)),
    ).resolves.toMatchObject({ changed: 2 });
  });
});
