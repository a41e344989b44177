import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { money } from "@/core/money";
import { markStatementsPaid } from "@/lib/payouts/batch-approval";
import { approvePayoutBatch, approveStatements, discardPayoutBatch, preparePayoutBatch } from "@/lib/payouts/batches";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { checkLedgerInvariant } from "@/lib/payouts/invariant";
import { listLedgerEntries } from "@/lib/payouts/ledger";
import { listLiability } from "@/lib/payouts/liability";
import { listRecipientWindows } from "@/db/queries/payouts";
import { monthWindow } from "@/lib/time";
import { addGame, insertSnapshot, type ReversalInput } from "../exports/fixture";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

/**
 * The service reports a reversal it knows only from the period row ("period_row = coarse fallback, reported wholly in
 * the window of the latest refund"): refunded again later, the whole reversal moves to the later window, the part a
 * batch of the earlier window deducted included. What an approved batch deducted is not deducted again; a draft's may
 * still change, so preparing the later window beside it flags the recipient instead.
 */

const GAME = "reported-again";
const acting = { actor: { id: "u-prep", email: "prep@payout-desk.test" }, via: "web" as const };
const approving = { actor: { id: "u-appr", email: "appr@payout-desk.test" }, via: "web" as const };
let t: TestDatabase;

/**
 * A period's reversal as a window reports it: known wholly from its period row, one event (the row's); with
 * `receipts`, refunds with receipts beside it, each an event of its own (the period row's part then cannot be told).
 */
const reversal = (periodId: number, recipientId: number, usd: string, basis: ReversalInput["basis"], receipts = 0) => {
  const event = { refundedAt: "2026-01-20T00:00:00Z", amountUsd: "1.00", before: "0", after: "1.00", full: false };
  const events = Array.from({ length: 1 + receipts }, () => ({ ...event, reversedAttributedUsd: "0.50" }));
  return { periodId, recipientId, reversedAttributedUsd: usd, basis, events };
};

/** A month's snapshot: recipients 1 to 3, each netting 50.00 less what `reversed` names for them. */
const month = (key: string, reversals: ReversalInput[], reversed: Record<number, string> = {}) => {
  const w = monthWindow(key);
  return insertSnapshot(t.db, {
    gameId: GAME,
    start: new Date(w.startMs).toISOString(),
    end: new Date(w.endMs).toISOString(),
    recipients: [1, 2, 3].map((id) => {
      const cut = reversed[id] ?? "0.00";
      const net = money("50.00").minus(cut).toFixed(2);
      return { id, name: `R${id}`, email: `r${id}@example.test`, net, reversed: cut };
    }),
    lines: [],
    reversals,
  });
};

async function flagsOf(batchId: string): Promise<Record<string, string[]>> {
  const rows = await t.db
    .selectFrom("payout_statement")
    .select(["recipient_player_id", "recipient_flags"])
    .where("batch_id", "=", batchId)
    .execute();
  return Object.fromEntries(rows.map((r) => [r.recipient_player_id, r.recipient_flags]));
}

/** What the recipient's statement in the batch deducts: its flags, the reversals deducted and those deducted before. */
async function deductionOf(batchId: string, recipient: number) {
  return t.db
    .selectFrom("payout_statement")
    .select(["recipient_flags", "reversed_attributed_usd", "reversed_before_usd", "net_attributed_usd"])
    .where("batch_id", "=", batchId)
    .where("recipient_player_id", "=", String(recipient))
    .executeTakeFirstOrThrow();
}

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, GAME);
});
afterAll(async () => t?.drop());

describe("a reversal known only from its period row, reported again in a later window", () => {
  it("flags the recipient whose reversal a batch of another window deducted, and no one else", async () => {
    // February: recipient 1's period 77 reversed by period row, recipient 2's period 78 by receipts.
    await month("2026-02", [reversal(77, 1, "2.00", "period_row"), reversal(78, 2, "1.00", "refund_receipts")]);
    const february = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow("2026-02") }, acting);
    expect(Object.values(await flagsOf(february.batchId)).flat()).toEqual([]);

    // April: both periods refunded again; period 77's whole reversal (2.00 deducted in February, and 3.00) moves here.
    // Recipient 3's period 79 is reversed by period row for the first time.
    await month("2026-04", [
      reversal(77, 1, "5.00", "period_row"),
      reversal(78, 2, "0.50", "refund_receipts"),
      reversal(79, 3, "1.00", "period_row"),
    ]);
    const april = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow("2026-04") }, acting);
    expect(await flagsOf(april.batchId)).toEqual({ "1": ["reversal_reported_again"], "2": [], "3": [] });
    // The flag stands on the statement: approving it skips it, saying why, until it is held or overridden.
    const first = await t.db
      .selectFrom("payout_statement")
      .select("id")
      .where("batch_id", "=", april.batchId)
      .where("recipient_player_id", "=", "1")
      .executeTakeFirstOrThrow();
    const approved = await approveStatements(t.db, { gameId: GAME, batchId: april.batchId, ids: [first.id] }, acting);
    expect(approved).toEqual({
      changed: 0,
      revision: expect.any(String),
      skipped: [
        {
          id: first.id,
          recipientPlayerId: 1,
          name: "R1",
          reason: expect.stringMatching(/has open flags \(Reversal reported again/),
          flagged: true,
        },
      ],
    });

    // February's batch discarded: nothing deducted it before, and April prepared again raises nothing.
    await discardPayoutBatch(t.db, { gameId: GAME, batchId: april.batchId, reason: "prepare again" }, acting);
    await discardPayoutBatch(t.db, { gameId: GAME, batchId: february.batchId, reason: "not paid" }, acting);
    const again = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow("2026-04") }, acting);
    expect(Object.values(await flagsOf(again.batchId)).flat()).toEqual([]);
  });

  it("deducts only what an approved batch of another window did not, and the ledger still holds", async () => {
    // June, approved and paid: recipient 1's period 177 reversed by period row, 2.00.
    await month("2026-06", [reversal(177, 1, "2.00", "period_row")], { 1: "2.00" });
    const june = await approvedAndPaid("2026-06");
    const now = new Date();
    const beforeJuneApproved = new Date("2026-10-01T00:00:00Z");
    const owedBefore = [await notInBatch(1, now), await notInBatch(1, beforeJuneApproved)];
    // August: refunded again, the period's whole reversal (5.00, the 2.00 June deducted included) is reported here.
    await month("2026-08", [reversal(177, 1, "5.00", "period_row")], { 1: "5.00" });
    // Not yet in a batch, August is owed as its statement will take it: 47.00, not 45.00. As it stood before June's
    // batch was approved, nothing had deducted any of it: 45.00.
    expect(
      money(await notInBatch(1, now))
        .minus(owedBefore[0] ?? "")
        .toFixed(2),
    ).toBe("47.00");
    expect(
      money(await notInBatch(1, beforeJuneApproved))
        .minus(owedBefore[1] ?? "")
        .toFixed(2),
    ).toBe("45.00");
    // The recipient's history says what it will owe, beside the snapshot's net.
    const windows = await listRecipientWindows(t.db, { gameId: GAME, recipientPlayerId: 1 });
    const augustWindow = windows.find((w) => w.window.startMs === monthWindow("2026-08").startMs);
    expect(augustWindow).toMatchObject({
      netAttributedUsd: "45.00",
      owed: { usd: "47.00", deductedBeforeUsd: "2.00" },
    });
    const august = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow("2026-08") }, acting);
    const figures = await deductionOf(august.batchId, 1);
    // In a batch, the window is owed from its statement: nothing is read from the snapshot for it any more.
    const prepared = await listRecipientWindows(t.db, { gameId: GAME, recipientPlayerId: 1 });
    expect(prepared.find((w) => w.window.startMs === monthWindow("2026-08").startMs)?.owed).toBeNull();
    // No flag: only the 3.00 not deducted before is deducted (gross 50.00: net 47.00, not 45.00).
    expect(figures).toEqual({
      recipient_flags: [],
      reversed_attributed_usd: "3.00",
      reversed_before_usd: "2.00",
      net_attributed_usd: "47.00",
    });
    // Frozen as the statement's other figures are.
    await expect(
      t.db
        .updateTable("payout_statement")
        .set({ reversed_before_usd: "0" })
        .where("batch_id", "=", august.batchId)
        .execute(),
    ).rejects.toThrow(/figures are frozen once prepared/);
    await approvedAndPaid("2026-08", august.batchId);
    // Each reversal posted once: 2.00 in June, 3.00 in August; what each paid adds up to the snapshots' nets and the
    // part deducted before.
    const reversals = await listLedgerEntries(t.db, { gameId: GAME, recipientPlayerId: 1 });
    const posted = reversals.filter((e) => e.kind === "reversal" && [june, august.batchId].includes(e.batchId));
    expect(posted.map((e) => e.amountUsd)).toEqual(["-2.00", "-3.00"]);
    const invariant = await checkLedgerInvariant(t.db, { gameId: GAME, recipientPlayerId: 1 });
    expect(invariant.violations).toEqual([]);
    expect(invariant.rows[0]).toMatchObject({ netAttributedUsd: "95.00", paidUsd: "95.00" });
  });

  it("refuses to approve a batch deducting what another window's batch approved since deducted", async () => {
    // January prepared and left a draft; March prepared beside it (flagged), then January approved.
    await month("2025-01", [reversal(377, 3, "2.00", "period_row")], { 3: "2.00" });
    const january = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow("2025-01") }, acting);
    await month("2025-03", [reversal(377, 3, "5.00", "period_row")], { 3: "5.00" });
    const march = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow("2025-03") }, acting);
    expect((await flagsOf(march.batchId))["3"]).toEqual(["reversal_reported_again"]);
    await approvedAndPaid("2025-01", january.batchId);
    // March's flag overridden, its statements approved: the batch itself is refused, nothing changed.
    await overrideFlag(
      t.db,
      {
        gameId: GAME,
        batchId: march.batchId,
        flag: "reversal_reported_again",
        recipientPlayerId: 3,
        reason: "compared both windows",
      },
      approving,
    );
    const drafts = await t.db
      .selectFrom("payout_statement")
      .select("id")
      .where("batch_id", "=", march.batchId)
      .execute();
    await approveStatements(t.db, { gameId: GAME, batchId: march.batchId, ids: drafts.map((d) => d.id) }, acting);
    await expect(approvePayoutBatch(t.db, { gameId: GAME, batchId: march.batchId }, approving)).rejects.toThrow(
      /deducted part of a reversal this batch deducts too \(recipient 3\): approving would deduct it twice/,
    );
    // Prepared again: only the 3.00 January did not deduct.
    await discardPayoutBatch(t.db, { gameId: GAME, batchId: march.batchId, reason: "prepare again" }, acting);
    const again = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow("2025-03") }, acting);
    expect(await deductionOf(again.batchId, 3)).toMatchObject({
      recipient_flags: [],
      reversed_attributed_usd: "3.00",
      reversed_before_usd: "2.00",
    });
    await approvedAndPaid("2025-03", again.batchId);
  });

  it("flags, and deducts whole, a period whose refunds are partly known from receipts in another window", async () => {
    // September: recipient 2's period 277 reversed 3.00, 1.00 of it from a receipt: the period row's part is not told.
    await month("2026-09", [reversal(277, 2, "3.00", "period_row", 1)], { 2: "3.00" });
    await approvedAndPaid("2026-09");
    await month("2026-11", [reversal(277, 2, "3.50", "period_row")], { 2: "3.50" });
    const november = await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow("2026-11") }, acting);
    expect(await deductionOf(november.batchId, 2)).toMatchObject({
      recipient_flags: ["reversal_reported_again"],
      reversed_attributed_usd: "3.50",
      reversed_before_usd: "0.00",
    });
  });
});

/** What the liability as of `asOf` counts owed to the recipient from windows not yet in a batch. */
async function notInBatch(recipient: number, asOf: Date): Promise<string> {
  const { rows } = await listLiability(t.db, { gameId: GAME, asOf });
  return rows.find((r) => r.recipientPlayerId === recipient)?.notInBatchUsd ?? "0.00";
}

/** Prepares the month's batch (unless given), approves it and its statements (two people), and pays every one. */
async function approvedAndPaid(key: string, prepared?: string): Promise<string> {
  const batchId =
    prepared ?? (await preparePayoutBatch(t.db, { gameId: GAME, window: monthWindow(key) }, acting)).batchId;
  const ids = async (state: string) =>
    (
      await t.db
        .selectFrom("payout_statement")
        .select("id")
        .where("batch_id", "=", batchId)
        .where("state", "=", state as "draft")
        .execute()
    ).map((r) => r.id);
  await approveStatements(t.db, { gameId: GAME, batchId, ids: await ids("draft") }, acting);
  await approvePayoutBatch(t.db, { gameId: GAME, batchId }, approving);
  const paid = { paidOn: new Date().toISOString().slice(0, 10), method: "paypal" as const, reference: `PP-${key}` };
  await markStatementsPaid(t.db, { gameId: GAME, batchId, ids: await ids("approved"), ...paid }, acting);
  return batchId;
}
