import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { demoMonths, emulatorStateFile, registerDemoGame } from "@/bin/demo";
import { createDb } from "@/db";
import type { PeriodState } from "@/emulator/ledger/types";
import { DEMO_GAME_ID } from "@/emulator/scenario/demo";
import { startEmulator, type RunningEmulator } from "@/emulator/server";
import { formatInstant } from "@/emulator/time";
import { money, sumMoney } from "@/lib/money";
import { addMonths } from "@/lib/time";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAs } from "../support/next-request";
import { signInAs } from "../support/users";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

const { refundAction } = await import("@/app/(desk)/subscriptions/actions");
const { listRefundAttempts } = await import("@/db/queries/refunds");
const { serviceClientForGame } = await import("@/lib/service/for-game");

/**
 * The embedded default across a restart: Payout Desk keeps its database and the emulator its state file, so a period
 * refunded from Payout Desk before the restart shows the same refunded amount at the service after it.
 */
let t: TestDatabase;
let dir: string;
let emulator: RunningEmulator | null = null;

/** Starts the emulator as `npm start` does: demo data with the clock at the first start, running in real time. */
async function startDemoEmulator(clock: string): Promise<RunningEmulator> {
  const running = await startEmulator({
    demo: { seed: 1, clock },
    stateFile: emulatorStateFile(dir),
    realTimeClock: true,
    rateLimits: "off",
  });
  await registerDemoGame(t.db, running.url, { pacing: "off" });
  return running;
}

/** A card-paid period nobody refunded yet, of at least USD 4.00. */
function refundablePeriod(running: RunningEmulator): PeriodState {
  for (const period of running.ledger().periods.values()) {
    if (period.sub.gameId !== DEMO_GAME_ID || period.status !== "paid" || period.refunds.length > 0) continue;
    const funding = period.funding;
    if (!funding || funding.cardChargedUsd.lte(0) || funding.pcstoreChargedUsd.gt(0)) continue;
    if (!period.mintOrderId || !period.paymentReference || period.amountUsd.lt(4)) continue;
    return period;
  }
  throw new Error("the demo has no refundable card period");
}

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-demo-"));
});
afterAll(async () => {
  await emulator?.close();
  await t?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the demo across a restart", () => {
  it(
    "[finance] a period refunded four times shows the same " +
      "refunded amount at the service after both sides restart",
    async () => {
      const firstStart = formatInstant(Math.floor(Date.now() / 1000) * 1000);
      emulator = await startDemoEmulator(firstStart);
      // The months `npm start` prints: the months up to the first start (the current one last, once a renewal is in
      // it).
      const months = demoMonths(emulator.ledger());
      const current = firstStart.slice(0, 7);
      expect([current, addMonths(current, -1)]).toContain(months?.last);
      expect(months && months.first < months.last).toBe(true);
      const finance = await signInAs(t.db, "finance");
      const period = refundablePeriod(emulator);
      const sub = period.sub;
      const email = emulator.ledger().player(sub.gameId, sub.playerId)?.email ?? "";

      actAs(finance);
      let remaining = period.amountUsd;
      for (const amount of ["1.00", "0.50", "1.25", "0.75"]) {
        const form = new FormData();
        for (const [k, v] of Object.entries({
          subscriptionId: sub.subscriptionId,
          periodId: period.periodId,
          periodSeq: period.periodSeq,
          amountUsd: amount,
          remainingBeforeUsd: remaining.toFixed(2),
          reason: "Player asked",
          playerEmail: email,
        })) {
          form.set(k, String(v));
        }
        const result = await refundAction(form);
        expect(result).toMatchObject({ ok: true, data: { state: "succeeded" } });
        remaining = remaining.minus(amount);
      }
      const clockBeforeStop = emulator.ledger().now;

      // Stop the emulator (its state saved on close) and Payout Desk's side; both start again from what they kept.
      await emulator.close();
      emulator = null;
      await t.db.destroy();
      const db = createDb(t.url, { max: 2 });
      t = { ...t, db };
      emulator = await startDemoEmulator(formatInstant(Math.floor(Date.now() / 1000) * 1000));

      const attempts = await listRefundAttempts(db, {
        gameId: DEMO_GAME_ID,
        subscriptionId: sub.subscriptionId,
        periodSeq: period.periodSeq,
      });
      const succeeded = attempts.filter((a) => a.status === "succeeded");
      expect(succeeded).toHaveLength(4);
      const shownByDesk = sumMoney(succeeded.map((a) => money(a.amountUsd)));
      expect(shownByDesk.toFixed(2)).toBe("3.50");

      const client = await serviceClientForGame(db, DEMO_GAME_ID);
      const report = await client.getPeriodReport(period.periodId);
      expect(report.refunds.refunded_to_date_usd).toBe(shownByDesk.toFixed(2));
      expect(report.refunds.refund_count).toBe(4);

      // The refunds happened at the time of the clicks: on the emulator clock that started at the first start and runs
      // with the wall clock, not at a fixed demo date.
      const after = Date.now();
      expect(report.refunds.events).toHaveLength(4);
      for (const event of report.refunds.events) {
        const at = Date.parse(event.refunded_at);
        expect(at).toBeGreaterThanOrEqual(Date.parse(firstStart));
        expect(at).toBeLessThanOrEqual(after);
      }
      // The restarted clock carries on from the saved anchor: never behind where it stopped, never ahead of the wall.
      expect(emulator.ledger().now).toBeGreaterThanOrEqual(clockBeforeStop);
      expect(emulator.ledger().now).toBeLessThanOrEqual(Date.now());
    },
  );
});
