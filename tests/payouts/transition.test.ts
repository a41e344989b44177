import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import {
  approvePayoutBatch,
  approveStatements,
  discardPayoutBatch,
  holdStatements,
  markStatementsPaid,
  unapproveStatements,
} from "@/lib/payouts/batches";
import { listPayoutStatements } from "@/lib/payouts/ledger";
import { TRANSITIONS } from "@/lib/payouts/transition";
import { prepareMonth, setUpPayoutsDatabase } from "../support/payouts";
import { actor, GAME, insertSnapshot } from "./fixtures";

/** The payout workflow's transitions: the table's states, the refusals, and the audit line the domain writes. */

let db: Db;
const preparer = { actor: actor("preparer"), via: "cli" as const };
const approver = { actor: actor("approver"), via: "web" as const };

setUpPayoutsDatabase(
  (t) => {
    db = t.db;
  },
  { games: ["other-game"] },
);

async function auditLines(batchId: string) {
  return db
    .selectFrom("audit_log")
    .select(["action", "actor_email", "via", "outcome", "detail"])
    .where("target", "=", batchId)
    .orderBy("id")
    .execute();
}

describe("transition()", () => {
  it("writes each change's audit line in its transaction, with the actor and the way it came", async () => {
    await insertSnapshot(db, {
      window: "2026-03",
      recipients: [
        { id: 8001, gross: "30.00" },
        { id: 8002, gross: "40.00" },
      ],
    });
    const { batchId } = await prepareMonth(db, "2026-03", preparer);
    const [a, b] = await listPayoutStatements(db, { gameId: GAME, batchId });
    if (!a || !b) throw new Error("two statements expected");
    await approveStatements(db, { gameId: GAME, batchId, ids: [a.id, b.id] }, preparer);
    const back = await unapproveStatements(db, { gameId: GAME, batchId, ids: [b.id] }, preparer);
    expect(back).toEqual({ revision: expect.any(String), changed: 1, skipped: [] });
    const held = await holdStatements(db, { gameId: GAME, batchId, ids: [a.id, b.id], reason: "Tax form" }, preparer);
    expect(held.changed).toBe(2);
    // Nothing approved: the table refuses the batch approval with the reason the page shows.
    await expect(approvePayoutBatch(db, { gameId: GAME, batchId }, approver)).rejects.toThrow(
      /Every statement is held/,
    );
    expect((await auditLines(batchId)).map((l) => [l.action, l.actor_email, l.via, l.outcome])).toEqual([
      ["payouts.batch.prepare", preparer.actor.email, "cli", "succeeded"],
      ["payouts.statement.approve", preparer.actor.email, "cli", "succeeded"],
      ["payouts.statement.unapprove", preparer.actor.email, "cli", "succeeded"],
      ["payouts.statement.hold", preparer.actor.email, "cli", "succeeded"],
    ]);
  });

  it("skips statements not in a state the transition moves from, naming it, and audits nothing changed", async () => {
    await insertSnapshot(db, { window: "2026-04", recipients: [{ id: 8101, gross: "30.00" }] });
    const { batchId } = await prepareMonth(db, "2026-04", preparer);
    const [s] = await listPayoutStatements(db, { gameId: GAME, batchId });
    if (!s) throw new Error("a statement expected");
    const result = await unapproveStatements(db, { gameId: GAME, batchId, ids: [s.id] }, preparer);
    expect(result).toEqual({
      revision: expect.any(String),
      changed: 0,
      skipped: [{ id: s.id, recipientPlayerId: 8101, name: "Recipient 8101", reason: "is in draft" }],
    });
    expect((await auditLines(batchId)).at(-1)).toMatchObject({
      action: "payouts.statement.unapprove",
      outcome: "nothing_changed",
    });
  });

  it("audits the approval of a batch with no statement as done: the batch moved, paid with nothing owed", async () => {
    await insertSnapshot(db, { window: "2026-08", recipients: [] });
    const { batchId } = await prepareMonth(db, "2026-08", preparer);
    await approvePayoutBatch(db, { gameId: GAME, batchId }, approver);
    expect((await auditLines(batchId)).at(-1)).toMatchObject({ action: "payouts.batch.approve", outcome: "succeeded" });
  });

  it("refuses a batch in a status the transition does not run from, and another game's batch", async () => {
    await insertSnapshot(db, { window: "2026-05", recipients: [{ id: 8201, gross: "30.00" }] });
    const { batchId } = await prepareMonth(db, "2026-05", preparer);
    await expect(
      markStatementsPaid(
        db,
        { gameId: GAME, batchId, paidOn: "2026-06-01", method: "wise", reference: "W-1" },
        approver,
      ),
    ).rejects.toThrow(TRANSITIONS.mark_paid.refused("draft"));
    await expect(
      discardPayoutBatch(db, { gameId: "other-game", batchId, reason: "Not this game's" }, approver),
    ).rejects.toThrow(/No such payout batch/);
    await discardPayoutBatch(db, { gameId: GAME, batchId, reason: "Prepared by mistake" }, approver);
    await expect(discardPayoutBatch(db, { gameId: GAME, batchId, reason: "Twice over" }, approver)).rejects.toThrow(
      TRANSITIONS.discard.refused("discarded"),
    );
    expect((await auditLines(batchId)).at(-1)).toMatchObject({
      action: "payouts.batch.discard",
      via: "web",
      detail: { reason: "Prepared by mistake", carriesFreed: 0 },
    });
  });

  it("names, for every transition, the batch statuses it runs from and an audit action", () => {
    for (const [name, rule] of Object.entries(TRANSITIONS)) {
      expect(rule.batchFrom.length, name).toBeGreaterThan(0);
      expect(rule.audit, name).toMatch(/^payouts\./);
    }
  });
});
