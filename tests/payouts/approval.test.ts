import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import {
  approvePayoutBatch,
  approveStatements,
  discardPayoutBatch,
  holdStatements,
  preparePayoutBatch,
  releaseStatements,
  unapproveStatements,
} from "@/lib/payouts/batches";
import { hasUnflaggedDraft } from "@/lib/payouts/batch-flag-reads";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { listPayoutStatements } from "@/lib/payouts/ledger";
import { savePayoutSettings } from "@/lib/payouts/settings";
import { money } from "@/lib/money";
import { actor, GAME, insertSnapshot, web } from "./fixtures";
import { approver, payWindow, prepareMonth, preparer, setUpPayoutsDatabase } from "../support/payouts";
import { expectInvariant } from "./ledger-setup";

let db: Db;
setUpPayoutsDatabase((t) => {
  db = t.db;
});

describe("the approval workflow", () => {
  it(
    "refuses the preparer as approver under the two-person " +
      "rule, and allows it when an admin switches the rule off",
    async () => {
      await insertSnapshot(db, { window: "2026-05", recipients: [{ id: 2001, gross: "20.00" }] });
      const { batchId } = await prepareMonth(db, "2026-05");
      await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer));
      await expect(approvePayoutBatch(db, { gameId: GAME, batchId }, web(preparer))).rejects.toThrow(/Two-person rule/);
      await savePayoutSettings(
        db,
        { twoPersonRule: false, minPayoutUsd: "10.00" },
        { actor: actor("admin"), via: "web" },
      );
      try {
        await expect(approvePayoutBatch(db, { gameId: GAME, batchId }, web(preparer))).resolves.toMatchObject({
          approved: 1,
          payableUsd: "20.00",
        });
      } finally {
        await savePayoutSettings(
          db,
          { twoPersonRule: true, minPayoutUsd: "10.00" },
          { actor: actor("admin"), via: "web" },
        );
      }
      const audit = await db
        .selectFrom("audit_log")
        .select(["action", "outcome", "actor_email", "detail"])
        .where("target", "=", batchId)
        .orderBy("id")
        .execute();
      // The refused attempt is kept, by whom and with the words they were refused with, before the approval itself.
      expect(audit.map((a) => `${a.action} ${a.outcome} ${a.actor_email}`)).toEqual([
        `payouts.batch.prepare succeeded ${preparer.email}`,
        `payouts.statement.approve succeeded ${preparer.email}`,
        `payouts.batch.approve refused_two_person_rule ${preparer.email}`,
        `payouts.batch.approve succeeded ${preparer.email}`,
      ]);
      expect(audit[2]?.detail).toEqual({
        refused: "Two-person rule: you prepared this batch, so another finance user must approve it.",
      });
    },
  );

  it("blocks approval on flags until they are overridden with a written reason, which is kept", async () => {
    const snapshot = await insertSnapshot(db, {
      window: "2026-06",
      recipients: [
        { id: 3001, gross: "40.00", resolved: false },
        { id: 3002, gross: "25.00", unavailableLine: true },
        { id: 3003, gross: "15.00" },
      ],
      unattributed: { spend_order_not_found: 2 },
    });
    const { batchId } = await prepareMonth(db, "2026-06");
    const first = await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer));
    expect(first.changed).toBe(0);
    expect(first.skipped.map((s) => s.reason).join(" ")).toMatch(/Spend order not found/);

    await expect(
      overrideFlag(
        db,
        { gameId: GAME, batchId, flag: "spend_order_not_found", recipientPlayerId: null, reason: "short" },
        web(preparer),
      ),
    ).rejects.toThrow(/at least 10 characters/);
    // Five emoji are ten UTF-16 units and five characters: refused as too short, as the database would.
    await expect(
      overrideFlag(
        db,
        { gameId: GAME, batchId, flag: "spend_order_not_found", recipientPlayerId: null, reason: "🙂🙂🙂🙂🙂" },
        web(preparer),
      ),
    ).rejects.toMatchObject({ code: "INVALID_INPUT", message: expect.stringMatching(/at least 10 characters/) });
    await overrideFlag(
      db,
      {
        gameId: GAME,
        batchId,
        flag: "spend_order_not_found",
        recipientPlayerId: null,
        reason: "Service confirmed both renewals were test orders",
      },
      web(preparer),
    );
    // The window page offers to approve the unflagged statements while one is in draft, and not once none is.
    const target = { gameId: GAME, batchId, snapshotId: snapshot.id };
    expect(await hasUnflaggedDraft(db, target)).toBe(true);
    const second = await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer));
    expect(second.changed).toBe(1);
    expect(await hasUnflaggedDraft(db, target)).toBe(false);
    const reasons = second.skipped.map((s) => `${s.recipientPlayerId}: ${s.reason}`).sort();
    expect(reasons).toEqual([
      "3001: has open flags (Unresolved recipient)",
      "3002: has open flags (Unavailable attribution)",
    ]);

    await overrideFlag(
      db,
      {
        gameId: GAME,
        batchId,
        flag: "attribution_unavailable",
        recipientPlayerId: 3002,
        reason: "Malformed line is a zero-amount test renewal",
      },
      web(preparer),
    );
    // Both drafts carry a stored flag (a flag can stand on each), and 3002's is overridden now: it is unflagged.
    expect(await hasUnflaggedDraft(db, target)).toBe(true);
    const statements = await listPayoutStatements(db, { gameId: GAME, batchId });
    await approveStatements(
      db,
      { gameId: GAME, batchId, ids: statements.filter((s) => s.recipientPlayerId === 3002).map((s) => s.id) },
      web(preparer),
    );
    await holdStatements(
      db,
      {
        gameId: GAME,
        batchId,
        ids: statements.filter((s) => s.recipientPlayerId === 3001).map((s) => s.id),
        reason: "Recipient unknown to the service",
      },
      web(preparer),
    );
    await expect(approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver))).resolves.toMatchObject({
      approved: 2,
      held: 1,
      payableUsd: "40.00",
    });
    const overrides = await db
      .selectFrom("payout_flag_override")
      .select(["flag", "reason", "actor_email"])
      .where("batch_id", "=", batchId)
      .execute();
    expect(overrides).toHaveLength(2);
    expect(overrides.find((o) => o.flag === "spend_order_not_found")?.reason).toBe(
      "Service confirmed both renewals were test orders",
    );
  });

  it(
    "refuses a batch whose window overlaps another, and " + "frees carried balances when a draft is discarded",
    async () => {
      const overlapping = { startMs: Date.parse("2026-06-15T00:00:00Z"), endMs: Date.parse("2026-07-15T00:00:00Z") };
      await insertSnapshot(db, { window: overlapping, recipients: [{ id: 3003, gross: "1.00" }] });
      await expect(preparePayoutBatch(db, { gameId: GAME, window: overlapping }, web(preparer))).rejects.toThrow(
        /same renewals twice/,
      );

      // Recipient 1002 … none carried now; make one: a July snapshot with a payable under the minimum.
      await insertSnapshot(db, { window: "2026-07", recipients: [{ id: 5001, gross: "4.00" }] });
      await payWindow(db, "2026-07");
      await insertSnapshot(db, { window: "2026-08", recipients: [{ id: 5001, gross: "7.00" }] });
      const draft = await prepareMonth(db, "2026-08");
      const [s] = await listPayoutStatements(db, { gameId: GAME, batchId: draft.batchId });
      expect(s).toMatchObject({ carriedInUsd: "4.00", payableUsd: "11.00" });
      await discardPayoutBatch(
        db,
        { gameId: GAME, batchId: draft.batchId, reason: "Prepared too early" },
        web(preparer),
      );
      const again = await prepareMonth(db, "2026-08");
      const [s2] = await listPayoutStatements(db, { gameId: GAME, batchId: again.batchId });
      expect(s2).toMatchObject({ carriedInUsd: "4.00", payableUsd: "11.00" });
      await expectInvariant(db);
    },
  );

  it(
    "bulk hold, back-to-draft and release change only " + "statements in a state they apply to, and name the others",
    async () => {
      await insertSnapshot(db, {
        window: "2026-10",
        recipients: [
          { id: 6001, gross: "20.00" },
          { id: 6002, gross: "30.00" },
          { id: 6003, gross: "40.00" },
        ],
      });
      const { batchId } = await prepareMonth(db, "2026-10");
      const statements = await listPayoutStatements(db, { gameId: GAME, batchId });
      const idOf = (recipient: number) => statements.find((s) => s.recipientPlayerId === recipient)!.id;
      const all = [idOf(6001), idOf(6002), idOf(6003)];
      await approveStatements(db, { gameId: GAME, batchId, ids: [idOf(6001)] }, web(preparer));
      await holdStatements(
        db,
        { gameId: GAME, batchId, ids: [idOf(6002)], reason: "Bank details bounced" },
        web(preparer),
      );

      const back = await unapproveStatements(db, { gameId: GAME, batchId, ids: all }, web(preparer));
      expect(back.changed).toBe(1);
      expect(back.skipped.map((s) => `${s.recipientPlayerId}: ${s.reason}`).sort()).toEqual([
        "6002: is held",
        "6003: is in draft",
      ]);

      const released = await releaseStatements(
        db,
        { gameId: GAME, batchId, ids: all, reason: "Bank details corrected" },
        web(preparer),
      );
      expect(released.changed).toBe(1);
      expect(released.skipped.map((s) => `${s.recipientPlayerId}: ${s.reason}`).sort()).toEqual([
        "6001: is in draft",
        "6003: is in draft",
      ]);

      await approveStatements(db, { gameId: GAME, batchId, ids: [idOf(6003)] }, web(preparer));
      await holdStatements(db, { gameId: GAME, batchId, ids: [idOf(6001)], reason: "Tax form missing" }, web(preparer));
      const held = await holdStatements(
        db,
        { gameId: GAME, batchId, ids: all, reason: "Whole window under review" },
        web(preparer),
      );
      expect(held.changed).toBe(2);
      expect(held.skipped.map((s) => `${s.recipientPlayerId}: ${s.reason}`)).toEqual(["6001: is held"]);
      const states = await listPayoutStatements(db, { gameId: GAME, batchId });
      expect(states.map((s) => s.state)).toEqual(["held", "held", "held"]);
      await discardPayoutBatch(db, { gameId: GAME, batchId, reason: "Test window" }, web(preparer));
    },
  );

  it("never lets a statement's figures change after preparation", async () => {
    const row = await db
      .selectFrom("payout_statement")
      .select(["id", "payable_usd"])
      .limit(1)
      .executeTakeFirstOrThrow();
    await expect(
      db
        .updateTable("payout_statement")
        .set({ payable_usd: money(row.payable_usd).plus(1).toFixed(2) })
        .where("id", "=", row.id)
        .execute(),
    ).rejects.toThrow(/frozen/);
    await expect(db.deleteFrom("payout_statement_event").execute()).rejects.toThrow(/never updated or deleted/);
  });
});
