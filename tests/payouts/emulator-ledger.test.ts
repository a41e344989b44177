import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { startEmulator, type RunningEmulator } from "@/emulator/server";
import type { ScenarioInput } from "@/emulator/scenario/schema";
import { saveGame } from "@/lib/games/games";
import { approvePayoutBatch, approveStatements, markStatementsPaid, preparePayoutBatch } from "@/lib/payouts/batches";
import { checkLedgerInvariant } from "@/lib/payouts/invariant";
import { listPayoutStatements } from "@/lib/payouts/ledger";
import { savePayoutSettings } from "@/lib/payouts/settings";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import { monthWindow } from "@/lib/time";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actor, web } from "./fixtures";

/**
 * The same ledger, from real snapshots of the emulator: refunds in February reverse January renewals (the reversal
 * belongs to the window of the refund), a partial refund in March reverses part of a February renewal.
 *
 * Price 10.00, fee 10 % → partner revenue 9.00; recipient A at 20 % earns 1.80 a renewal, recipient B at 10 % 0.90.
 * Minimum payout 1.00.
 *
 * | recipient | January          | February                               | March                              |
 * |-----------|------------------|----------------------------------------|------------------------------------|
 * | A 7001    | +3.60 → pays 3.60 | +1.80 −3.60 (Jan refunds) → −1.80 carried | +3.60 −0.90 (Feb partial) −1.80 in →
 * 0.90 rolls |
 * | B 7002    | +0.90 → rolls     | +0.90 +0.90 in → pays 1.80              | —                                  |
 */

const GAME = "ledger-emu";
const SECRET = "gs_ledger_emulator_secret";

function sub(
  id: string,
  player: number,
  card: number,
  recipient: number,
  percent: string,
  paid: string[],
  refunds: { seq: number; amount: string; at: string }[],
) {
  return {
    game_id: GAME,
    subscription_id: id,
    player_id: player,
    item_id: "pass",
    item_name: "Pass",
    amount_usd: "10.00",
    created_at: "2025-12-20T00:00:00Z",
    status: "active",
    card_id: card,
    revenue_share: { recipient_player_id: recipient, percent },
    periods: paid.map((at, i) => ({
      period_seq: i + 1,
      status: "paid",
      period_start: at,
      period_end: new Date(Date.parse(at) + 86_400_000).toISOString().replace(".000Z", "Z"),
      paid_at: at,
    })),
    refunds: refunds.map((r) => ({ period_seq: r.seq, amount_usd: r.amount, refunded_at: r.at })),
  };
}

const SCENARIO = {
  clock: "2026-04-15T00:00:00Z",
  games: [{ game_id: GAME, name: "Ledger", status: "live", secret: SECRET, fee_percent: "10.00" }],
  players: [
    {
      game_id: GAME,
      player_id: 7001,
      email: "a@ledger.test",
      name: "Recipient A",
      date_joined: "2024-01-01T00:00:00Z",
    },
    {
      game_id: GAME,
      player_id: 7002,
      email: "b@ledger.test",
      name: "Recipient B",
      date_joined: "2024-01-01T00:00:00Z",
    },
    { game_id: GAME, player_id: 8001, email: "p1@ledger.test", name: null, date_joined: "2024-01-01T00:00:00Z" },
    { game_id: GAME, player_id: 8002, email: "p2@ledger.test", name: null, date_joined: "2024-01-01T00:00:00Z" },
  ],
  cards: [
    {
      game_id: GAME,
      player_id: 8001,
      card_id: 1,
      last_four: "4242",
      exp_month: 12,
      exp_year: 2035,
      created_at: "2024-01-01T00:00:00Z",
    },
    {
      game_id: GAME,
      player_id: 8002,
      card_id: 2,
      last_four: "4242",
      exp_month: 12,
      exp_year: 2035,
      created_at: "2024-01-01T00:00:00Z",
    },
  ],
  subscriptions: [
    sub(
      "SUB_1767000000_LEDGERAA",
      8001,
      1,
      7001,
      "20.00",
      [
        "2026-01-05T10:00:00Z",
        "2026-01-20T10:00:00Z",
        "2026-02-10T10:00:00Z",
        "2026-03-05T10:00:00Z",
        "2026-03-15T10:00:00Z",
      ],
      [
        { seq: 2, amount: "10.00", at: "2026-02-02T10:00:00Z" },
        { seq: 1, amount: "10.00", at: "2026-02-03T10:00:00Z" },
        { seq: 3, amount: "5.00", at: "2026-03-01T10:00:00Z" },
      ],
    ),
    sub("SUB_1767000000_LEDGERBB", 8002, 2, 7002, "10.00", ["2026-01-07T10:00:00Z", "2026-02-07T10:00:00Z"], []),
  ],
} as unknown as ScenarioInput;

let t: TestDatabase;
let db: Db;
let emulator: RunningEmulator;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  db = t.db;
  emulator = await startEmulator({ port: 0, scenario: SCENARIO, rateLimits: "off" });
  await saveGame(
    db,
    { id: GAME, name: "Ledger", environment: "sandbox", baseUrl: emulator.url, secret: SECRET, webhookSecrets: [] },
    { replace: false, as: { actor: null, via: "cli" } },
  );
  await db
    .updateTable("game")
    .set({ settings: JSON.stringify({ pacing: "off" }) })
    .where("id", "=", GAME)
    .execute();
  await savePayoutSettings(db, { twoPersonRule: true, minPayoutUsd: "1.00" }, { actor: actor("admin"), via: "web" });
});
afterAll(async () => {
  await emulator?.close();
  await t?.drop();
});

async function snapshotAndPay(month: string) {
  const window = monthWindow(month);
  await takeSnapshotNow(db, { gameId: GAME, window, requestedBy: null, via: "test" });
  const { batchId } = await preparePayoutBatch(db, { gameId: GAME, window }, web(actor("preparer")));
  await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(actor("preparer")));
  await approvePayoutBatch(db, { gameId: GAME, batchId }, web(actor("approver")));
  const approved = (await listPayoutStatements(db, { gameId: GAME, batchId })).filter((s) => s.state === "approved");
  if (approved.length > 0)
    await markStatementsPaid(
      db,
      { gameId: GAME, batchId, paidOn: `${month}-28`, method: "paypal", reference: `PP-${month}` },
      web(actor("approver")),
    );
  const statements = await listPayoutStatements(db, { gameId: GAME, batchId });
  const invariant = await checkLedgerInvariant(db, { gameId: GAME });
  expect(invariant.violations).toEqual([]);
  return Object.fromEntries(statements.map((s) => [s.recipientPlayerId, s]));
}

describe("the ledger over emulator snapshots", () => {
  it("carries January's refunds, reported in February, against later payouts and keeps the invariant", async () => {
    const jan = await snapshotAndPay("2026-01");
    expect(jan[7001]).toMatchObject({ grossAttributedUsd: "3.60", state: "paid", paidAmountUsd: "3.60" });
    expect(jan[7002]).toMatchObject({ netAttributedUsd: "0.90", state: "carried", carryOutUsd: "0.90" });

    const feb = await snapshotAndPay("2026-02");
    expect(feb[7001]).toMatchObject({
      grossAttributedUsd: "1.80",
      reversedAttributedUsd: "3.60",
      netAttributedUsd: "-1.80",
      state: "carried",
      carryOutUsd: "-1.80",
    });
    expect(feb[7002]).toMatchObject({
      netAttributedUsd: "0.90",
      carriedInUsd: "0.90",
      state: "paid",
      paidAmountUsd: "1.80",
    });

    const mar = await snapshotAndPay("2026-03");
    // The partial refund of February's renewal (5.00 of 10.00) reverses round(1.80 × 5 / 10) = 0.90 in March.
    expect(mar[7001]).toMatchObject({
      grossAttributedUsd: "3.60",
      reversedAttributedUsd: "0.90",
      carriedInUsd: "-1.80",
      availableUsd: "0.90",
      state: "carried",
      carryOutUsd: "0.90",
    });

    const rows = Object.fromEntries(
      (await checkLedgerInvariant(db, { gameId: GAME })).rows.map((r) => [r.recipientPlayerId, r]),
    );
    // A: nets 3.60 − 1.80 + 2.70 = 4.50 = paid 3.60 + carried 0.90.
    expect(rows[7001]).toMatchObject({ netAttributedUsd: "4.50", paidUsd: "3.60", carriedUsd: "0.90", ok: true });
    expect(rows[7002]).toMatchObject({ netAttributedUsd: "1.80", paidUsd: "1.80", carriedUsd: "0.00", ok: true });
  });
});
