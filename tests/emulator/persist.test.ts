import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeState, encodeState, readStateFile, StateFileError, writeStateFile } from "@/emulator/ledger/persist";
import { loadScenario } from "@/emulator/scenario/load";
import { startEmulator } from "@/emulator/server";
import { money } from "@/lib/money";
import { GAME_SECRET, refundScenario, SUBS } from "../refunds/setup";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "emulator-state-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const ANCHOR = { wallAt: 1_700_000_000_000, ledgerAt: 1_763_640_000_000 };

describe("emulator state file", () => {
  it("keeps every field of the ledger, new ones included, with shared records still shared", () => {
    const ledger = loadScenario(refundScenario());
    const sub = ledger.subscriptions.get(SUBS.basic);
    const period = sub?.periods[1];
    if (!sub || !period) throw new Error("scenario changed");
    // A field the codec has never heard of: a Map of records pointing into the ledger.
    const game = ledger.games.get(sub.gameId) as unknown as Record<string, unknown>;
    game.openCases = new Map([
      ["case_1", { period, amountUsd: money("2.50"), notes: ["a", undefined], opened: new Set([1, 2]) }],
    ]);

    const back = decodeState(encodeState(ledger, ANCHOR));
    expect(back.anchor).toEqual(ANCHOR);
    const backSub = back.ledger.subscriptions.get(SUBS.basic);
    const backPeriod = backSub?.periods[1];
    expect(backPeriod?.sub).toBe(backSub);
    expect(back.ledger.periods.get(period.periodId)).toBe(backPeriod);
    expect(backPeriod?.amountUsd.toFixed(2)).toBe(period.amountUsd.toFixed(2));
    const cases = (back.ledger.games.get(sub.gameId) as unknown as { openCases: Map<string, any> }).openCases;
    const opened = cases.get("case_1");
    expect(opened.period).toBe(backPeriod);
    expect(opened.amountUsd.toFixed(2)).toBe("2.50");
    expect(opened.notes).toEqual(["a", undefined]);
    expect([...opened.opened]).toEqual([1, 2]);
    // The same state encodes to the same text.
    expect(encodeState(back.ledger, ANCHOR, 0)).toBe(encodeState(ledger, ANCHOR, 0));
  });

  it("refuses a truncated, foreign or newer file with one clear line instead of starting afresh", async () => {
    const file = path.join(dir, "state.json");
    writeStateFile(file, loadScenario(refundScenario()), ANCHOR);
    const text = await readFile(file, "utf8");

    await writeFile(file, text.slice(0, Math.floor(text.length / 2)));
    await expect(startEmulator({ scenario: refundScenario(), stateFile: file })).rejects.toThrow(StateFileError);
    expect(() => readStateFile(file)).toThrow(/^emulator state .*state\.json cannot be read \(not JSON/);

    await writeFile(file, JSON.stringify({ ...JSON.parse(text), version: 99 }));
    expect(() => readStateFile(file)).toThrow(/version 99, this emulator reads version 1/);

    await writeFile(file, JSON.stringify({ hello: "world" }));
    expect(() => readStateFile(file)).toThrow(/not an emulator state file/);
    // The refused file is left as it was for the person to look at.
    expect(await readFile(file, "utf8")).toBe(JSON.stringify({ hello: "world" }));
  });

  it("saves by replacing the file whole: a leftover temporary file from a crash is never read", async () => {
    const file = path.join(dir, "atomic.json");
    writeStateFile(file, loadScenario(refundScenario()), ANCHOR);
    await writeFile(`${file}.12345.tmp`, "{ half a sta");
    expect(readStateFile(file)?.anchor).toEqual(ANCHOR);
    expect(readStateFile(path.join(dir, "none.json"))).toBeNull();
  });

  it("carries a refund and the clock over a restart of the emulator", async () => {
    const file = path.join(dir, "restart.json");
    const first = await startEmulator({ scenario: refundScenario(), stateFile: file, rateLimits: "off" });
    const response = await fetch(`${first.url}/api/subscriptions/${SUBS.basic}/refund`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-game-secret-key": GAME_SECRET },
      body: JSON.stringify({ client_request_id: "restart-1", period_seq: 2, amount_usd: "3.00" }),
    });
    expect(response.status).toBe(200);
    const receipt = await response.json();
    expect(receipt.refund_key).toMatch(/^rfk_/);
    await fetch(`${first.url}/__emulator/clock/advance`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ by: "1d" }),
    });
    const clock = first.ledger().now;
    await first.close();

    const second = await startEmulator({ scenario: refundScenario(), stateFile: file, rateLimits: "off" });
    try {
      expect(second.ledger().now).toBe(clock);
      const period = second.ledger().subscriptions.get(SUBS.basic)?.periods[1];
      expect(period?.refundedTotalUsd.toFixed(2)).toBe("3.00");
      // The same key replays the stored receipt; a new refund gets an id never handed out before.
      const replay = await fetch(`${second.url}/api/subscriptions/${SUBS.basic}/refund`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-game-secret-key": GAME_SECRET },
        body: JSON.stringify({ client_request_id: "restart-1", period_seq: 2, amount_usd: "3.00" }),
      });
      const replayed = await replay.json();
      expect(replayed.refund_key).toBe(receipt.refund_key);
      const next = await fetch(`${second.url}/api/subscriptions/${SUBS.basic}/refund`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-game-secret-key": GAME_SECRET },
        body: JSON.stringify({ client_request_id: "restart-2", period_seq: 2, amount_usd: "1.00" }),
      });
      const fresh = await next.json();
      expect(next.status).toBe(200);
      expect(fresh.refund_key).toMatch(/^rfk_/);
      expect(fresh.refund_key).not.toBe(receipt.refund_key);
    } finally {
      await second.close();
    }
    expect(readStateFile(file)?.ledger.subscriptions.get(SUBS.basic)?.periods[1]?.refundedTotalUsd.toFixed(2)).toBe(
      "4.00",
    );
  });
});
