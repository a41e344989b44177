import { describe, expect, it, vi } from "vitest";
import type { ServiceDisputeStatus } from "../../db/types";
import { listSnapshotDisputes, recordDisputeClosed, recordDisputeOpened } from "../../db/queries/disputes";
import type { RunningEmulator } from "../../emulator/server";
import { approvePayoutBatch, approveStatements, holdStatements, preparePayoutBatch } from "../../lib/payouts/batches";
import { approvedWithOpenFlags } from "../../lib/payouts/batch-flag-reads";
import { overrideFlag } from "../../lib/payouts/flag-override";
import { readBatchFlags } from "../../lib/payouts/flags";
import { listPayoutStatements } from "../../lib/payouts/ledger";
import { takeSnapshotNow } from "../../lib/snapshots/pull";
import { monthWindow, type TimeWindow } from "../../lib/time";
import { createUser } from "../../lib/auth/users";
import { SUB } from "../emulator/fixture";
import { refusalLine, runDesk } from "../support/desk";
import type { TestDatabase } from "../support/db";
import { setUpEmulatorWebhooks } from "../webhooks/emulator-delivery";
import { waitFor } from "../support/wait";
import { deliver, envelope, type RouteHandler } from "../webhooks/support";
import { actor, web } from "./fixtures";

vi.mock("next/headers", () => import("../support/next-request"));

/**
 * Disputes end to end: the emulator opens and closes a chargeback on a renewal's card charge and sends the signed
 * `purchase.disputed` events over HTTP to the webhook route; the processing job records the dispute; the payout flags
 * find the recipient's renewal line by its mint_order_id and block approval until the dispute closes won, or an
 * override with a reason (a lost dispute stays flagged, with its amount).
 */

const SIGNING_SECRET = "whsec_disputes_1";
const GAME = "g1";
/** Bob (player 2) earns on SUB.monthly (20% of 9.00 = 1.80 a period) and SUB.ninetyNine; 777 is unresolved. */
const BOB = 2;
const preparer = actor("preparer");
const approver = actor("approver");
const cli = { actor: null, via: "cli" } as const;

let t: TestDatabase;
let emulator: RunningEmulator;
let routePOST: RouteHandler;

async function admin(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${emulator.url}/__emulator${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function disputeStatus(disputeId: string, status: ServiceDisputeStatus): Promise<void> {
  await waitFor(async () => {
    const row = await t.db
      .selectFrom("service_dispute")
      .select("status")
      .where("game_id", "=", GAME)
      .where("dispute_id", "=", disputeId)
      .executeTakeFirst();
    return row?.status === status;
  });
}

/** Snapshot of the window, a batch from it, and the id of Bob's statement and the period of Bob's SUB.monthly line. */
/** A purchase.disputed delivered to the webhook route: its event once processing has ended. */
async function deliverDispute(body: string) {
  expect((await deliver(routePOST, { gameId: GAME, body, secrets: [SIGNING_SECRET] })).status).toBe(200);
  return waitFor(async () => {
    const row = await t.db.selectFrom("webhook_event").select("status").where("body", "=", body).executeTakeFirst();
    return row && row.status !== "pending" ? row : null;
  });
}

async function prepareWindow(window: TimeWindow) {
  const snapshot = await takeSnapshotNow(t.db, { gameId: GAME, window, requestedBy: null, via: "test" });
  const { batchId } = await preparePayoutBatch(t.db, { gameId: GAME, window }, web(preparer));
  const statements = await listPayoutStatements(t.db, { gameId: GAME, batchId });
  const bob = statements.find((s) => s.recipientPlayerId === BOB);
  if (!bob) throw new Error("no statement for Bob");
  // The unresolved recipient's own flag is not under test: hold it.
  const others = statements.filter((s) => s.recipientPlayerId !== BOB).map((s) => s.id);
  if (others.length > 0)
    await holdStatements(t.db, { gameId: GAME, batchId, ids: others, reason: "Not under review here" }, web(preparer));
  const line = await t.db
    .selectFrom("snapshot_line")
    .select(["period_id", "mint_order_id"])
    .where("snapshot_id", "=", snapshot.snapshotId)
    .where("subscription_id", "=", SUB.monthly)
    .executeTakeFirstOrThrow();
  expect(line.mint_order_id).toMatch(/^ord_/);
  return {
    snapshotId: snapshot.snapshotId,
    batchId,
    bobStatementId: bob.id,
    periodId: Number(line.period_id),
    orderId: line.mint_order_id,
  };
}

setUpEmulatorWebhooks({ gameId: GAME, signingSecret: SIGNING_SECRET }, (running) => {
  ({ t, emulator, POST: routePOST } = running);
});

describe("disputed renewals", () => {
  it("an open dispute on a recipient's renewal blocks approval until it closes won", async () => {
    const may = await prepareWindow(monthWindow("2026-05"));
    const opened = await admin("/disputes", { period_id: may.periodId, reason: "fraudulent" });
    expect(opened).toMatchObject({ order_id: may.orderId, dispute_status: "open", usd_amount: "10.00" });
    const disputeId = String(opened.dispute_id);
    await disputeStatus(disputeId, "open");

    const blocked = await approveStatements(
      t.db,
      { gameId: GAME, batchId: may.batchId, ids: [may.bobStatementId] },
      web(preparer),
    );
    expect(blocked.changed).toBe(0);
    expect(blocked.skipped).toEqual([
      expect.objectContaining({ recipientPlayerId: BOB, reason: expect.stringMatching(/Disputed renewal/) }),
    ]);
    const flags = await readBatchFlags(t.db, { gameId: GAME, batchId: may.batchId, snapshotId: may.snapshotId });
    expect(flags.disputes).toEqual([
      expect.objectContaining({
        flag: "disputed_renewal",
        recipientPlayerId: BOB,
        cause: `dispute:${disputeId}:open`,
        detail: expect.stringContaining("USD 10.00"),
      }),
    ]);

    await admin(`/disputes/${disputeId}/close`, { dispute_status: "won" });
    await disputeStatus(disputeId, "won");
    expect(
      (await approveStatements(t.db, { gameId: GAME, batchId: may.batchId, ids: [may.bobStatementId] }, web(preparer)))
        .changed,
    ).toBe(1);
    await expect(
      approvePayoutBatch(t.db, { gameId: GAME, batchId: may.batchId }, web(approver)),
    ).resolves.toMatchObject({
      approved: 1,
    });
  });

  it(
    "a lost dispute stays flagged with its amount, also after an override written while it was open, " +
      "until overridden again",
    async () => {
      const april = await prepareWindow(monthWindow("2026-04"));
      const opened = await admin("/disputes", {
        period_id: april.periodId,
        reason: "product_not_received",
        usd_amount: "6.00",
      });
      const disputeId = String(opened.dispute_id);
      await disputeStatus(disputeId, "open");
      await overrideFlag(
        t.db,
        {
          gameId: GAME,
          batchId: april.batchId,
          flag: "disputed_renewal",
          recipientPlayerId: BOB,
          reason: "Player confirmed the charge; pay while it runs",
          cause: `dispute:${disputeId}:open`,
        },
        web(preparer),
      );
      expect(
        (
          await approveStatements(
            t.db,
            { gameId: GAME, batchId: april.batchId, ids: [april.bobStatementId] },
            web(preparer),
          )
        ).changed,
      ).toBe(1);

      const closed = await admin(`/disputes/${disputeId}/close`, { dispute_status: "lost" });
      expect(closed).toMatchObject({ dispute_status: "lost", currency_debited: "60.00" });
      await disputeStatus(disputeId, "lost");
      await expect(approvePayoutBatch(t.db, { gameId: GAME, batchId: april.batchId }, web(approver))).rejects.toThrow(
        /Disputed renewal/,
      );
      // The window page reads the same and offers no approval of the batch.
      const target = { gameId: GAME, batchId: april.batchId, snapshotId: april.snapshotId };
      expect(await approvedWithOpenFlags(t.db, target)).toEqual([BOB]);
      // So does the command line: the flag is listed, and approving is refused before anything changes.
      const cliApprover = "cli-approver@payout-desk.test";
      const cliPassword = { PAYOUT_DESK_ACTOR_PASSWORD: "a-long-password" };
      const revision = t.db.selectFrom("payout_batch").select("revision").where("id", "=", april.batchId);
      const seen = ["--revision", String((await revision.executeTakeFirstOrThrow()).revision)];
      await createUser(t.db, { email: cliApprover, role: "finance", password: "a-long-password" }, cli);
      const listed = await runDesk(t.url, ["payouts", "flags", "--batch", april.batchId]);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout).flags).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            flag: "disputed_renewal",
            recipientPlayerId: BOB,
            cause: `dispute:${disputeId}:lost`,
          }),
        ]),
      );
      const refused = await runDesk(
        t.url,
        ["payouts", "approve", "--batch", april.batchId, ...seen, "--actor", cliApprover],
        cliPassword,
      );
      expect(refusalLine(refused)).toContain(
        `1 approved statement has an open flag raised since its approval (recipient ${BOB})`,
      );
      const batchRow = t.db.selectFrom("payout_batch").select("status").where("id", "=", april.batchId);
      expect(await batchRow.executeTakeFirstOrThrow()).toEqual({ status: "draft" });
      // Only the unflagged: nothing to approve, and the batch is left a draft, saying why (no attempt refused midway).
      const unflagged = await runDesk(
        t.url,
        [...["payouts", "approve", "--batch", april.batchId, ...seen, "--actor", cliApprover, "--unflagged"]],
        cliPassword,
      );
      expect(unflagged.code, unflagged.stderr).toBe(0);
      expect(JSON.parse(unflagged.stdout)).toMatchObject({ batchApproved: false, stillDraft: 0, stillFlagged: 1 });
      expect(unflagged.stderr).toContain("1 approved statement with a flag raised since (override them)");
      expect(await batchRow.executeTakeFirstOrThrow()).toEqual({ status: "draft" });

      const shown = await listSnapshotDisputes(t.db, {
        gameId: GAME,
        snapshotId: april.snapshotId,
        recipientPlayerId: BOB,
      });
      expect(shown).toEqual([
        expect.objectContaining({
          disputeId,
          status: "lost",
          usdAmount: "6.00",
          periodId: april.periodId,
          attributedAmountUsd: "1.80",
        }),
      ]);
      const flags = await readBatchFlags(t.db, { gameId: GAME, batchId: april.batchId, snapshotId: april.snapshotId });
      expect(flags.disputes).toEqual([
        expect.objectContaining({
          cause: `dispute:${disputeId}:lost`,
          detail: expect.stringMatching(/lost .*USD 6\.00 charged back/),
        }),
      ]);

      await expect(
        overrideFlag(
          t.db,
          { gameId: GAME, batchId: april.batchId, flag: "disputed_renewal", recipientPlayerId: BOB, reason: "short" },
          web(preparer),
        ),
      ).rejects.toThrow(/at least 10 characters/);
      // Overridden from the command line, naming the instance (the cause) as payouts flags listed it.
      const overridden = await runDesk(
        t.url,
        [
          ...["payouts", "override", "--batch", april.batchId, "--flag", "disputed_renewal"],
          ...["--recipient", String(BOB), "--cause", `dispute:${disputeId}:lost`],
          ...["--reason", "Loss recovered from the recipient separately", "--actor", cliApprover],
        ],
        cliPassword,
      );
      expect(overridden.code, overridden.stderr).toBe(0);
      expect(JSON.parse(overridden.stdout)).toMatchObject({ overridden: { cause: `dispute:${disputeId}:lost` } });
      // Bob's April is under the minimum payout: approving closes it as carried forward.
      const approved = await approvePayoutBatch(t.db, { gameId: GAME, batchId: april.batchId }, web(approver));
      expect(approved.approved + approved.carried).toBe(1);
    },
  );

  it(
    "keeps a close that arrives before its opening, and ignores a repeated opening: " + "never reopened, amount kept",
    async () => {
      const base = { gameId: GAME, disputeId: "dp_out_of_order", orderId: "ord_out_of_order" };
      await recordDisputeClosed(t.db, {
        ...base,
        status: "lost",
        currencyDebited: "50.00",
        closedAt: new Date("2026-05-20T00:00:00Z"),
        eventId: "evt_close",
      });
      const opened = {
        ...base,
        transactionId: "txn_1",
        reason: "fraudulent",
        usdAmount: "5.00",
        openedAt: new Date("2026-05-10T00:00:00Z"),
        eventId: "evt_open",
      };
      expect(await recordDisputeOpened(t.db, opened)).toEqual({ status: "lost" });
      expect(await recordDisputeOpened(t.db, { ...opened, eventId: "evt_open_again", usdAmount: "9.00" })).toEqual({
        status: "lost",
      });
      const row = await t.db
        .selectFrom("service_dispute")
        .selectAll()
        .where("dispute_id", "=", "dp_out_of_order")
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        status: "lost",
        usd_amount: "5.00",
        currency_debited: "50.00",
        opened_event_id: "evt_open",
        closed_event_id: "evt_close",
      });
      // Every purchase.disputed delivery of the tests above was processed, none left unprocessable.
      const events = await t.db
        .selectFrom("webhook_event")
        .select("status")
        .where("event_type", "=", "purchase.disputed")
        .execute();
      expect(events.length).toBe(4);
      expect(events.every((e) => e.status === "processed")).toBe(true);
    },
  );

  it("stores a purchase.disputed whose data does not match the spec as unreadable, recording no dispute", async () => {
    const body = envelope({
      gameId: GAME,
      type: "purchase.disputed",
      data: { order_id: "ord_bad", dispute_id: "dp_bad", usd_amount: 10 },
    });
    const event = await deliverDispute(body);
    expect(event.status).toBe("unprocessable");
    expect(await t.db.selectFrom("service_dispute").select("id").where("dispute_id", "=", "dp_bad").execute()).toEqual(
      [],
    );
  });

  it("records an opening whose reason or other ids are not as listed, so that its renewal is still held", async () => {
    const body = envelope({
      gameId: GAME,
      type: "purchase.disputed",
      data: {
        order_id: "ord_odd",
        dispute_id: "dp_odd",
        transaction_id: { id: 5 },
        payment_intent_id: 12,
        charge_id: ["ch_1"],
        reason: "r".repeat(600),
        usd_amount: "3.10",
      },
    });
    const event = await deliverDispute(body);
    expect(event.status).toBe("processed");
    const dispute = t.db
      .selectFrom("service_dispute")
      .select(["status", "usd_amount", "transaction_id", "reason"])
      .where("dispute_id", "=", "dp_odd");
    expect(await dispute.executeTakeFirst()).toEqual({
      status: "open",
      usd_amount: "3.10",
      transaction_id: null,
      reason: "r".repeat(600),
    });
    // The event says what was left out.
    const stored = t.db.selectFrom("webhook_event").select("effect").where("body", "=", body);
    expect((await stored.executeTakeFirstOrThrow()).effect).toMatchObject({
      kind: "dispute",
      dropped: ["transaction_id"],
    });
  });

  it("records an opening that carries a status of its own as an opening, not an unreadable close", async () => {
    const body = envelope({
      gameId: GAME,
      type: "purchase.disputed",
      data: {
        order_id: "ord_pending",
        dispute_id: "dp_pending",
        dispute_status: "needs_response",
        reason: "fraudulent",
        usd_amount: "7.00",
      },
    });
    const event = await deliverDispute(body);
    expect(event.status).toBe("processed");
    const dispute = t.db
      .selectFrom("service_dispute")
      .select(["status", "usd_amount"])
      .where("dispute_id", "=", "dp_pending");
    expect(await dispute.executeTakeFirst()).toEqual({ status: "open", usd_amount: "7.00" });
  });
});
