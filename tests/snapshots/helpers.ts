import { startEmulator, type RunningEmulator } from "@/emulator/server";
import type { ScenarioInput } from "@/emulator/scenario/schema";
import { GAME_ID, GAME_SECRET } from "./scenario";
import { registerDemoGame } from "@/bin/demo";
import type { Db } from "@/db";
import { saveGame } from "@/lib/games/games";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

export { buildScenario, GAME_ID, GAME_SECRET, HEAVY_RECIPIENT_ID, type ScenarioShape } from "./scenario";

export type SnapshotTestEnv = { t: TestDatabase; db: Db; emulator: RunningEmulator; close(): Promise<void> };

/**
 * A fresh database and an emulator loaded with `scenario`, the game registered with pacing as given. The game's
 * scheduled pulls are off: a test that starts the workers would otherwise see a pull of the current month queued
 * whenever its run crosses the hourly schedule, taking faults and calls meant for the pull under test.
 */
export async function startSnapshotEnv(
  scenario: ScenarioInput | "demo",
  options: { pacing?: string; rateLimits?: string } = {},
): Promise<SnapshotTestEnv> {
  const t = await createTestDatabase();
  applyTestEnv(t);
  const emulator = await startEmulator(
    scenario === "demo"
      ? { port: 0, demo: { seed: 1 }, rateLimits: options.rateLimits ?? "off" }
      : { port: 0, scenario, rateLimits: options.rateLimits ?? "off" },
  );
  if (scenario === "demo") {
    await registerDemoGame(t.db, emulator.url, { pacing: options.pacing ?? "off" });
  } else {
    await saveGame(
      t.db,
      {
        id: GAME_ID,
        name: "Snapshot Game",
        environment: "sandbox",
        baseUrl: emulator.url,
        secret: GAME_SECRET,
        webhookSecrets: [],
      },
      { replace: false, as: { actor: null, via: "cli" } },
    );
    await t.db
      .updateTable("game")
      .set({
        settings: JSON.stringify({
          pacing: options.pacing ?? "off",
          automation: { pullPreviousMonth: false, pullCurrentMonthDaily: false },
        }),
      })
      .where("id", "=", GAME_ID)
      .execute();
  }
  return {
    t,
    db: t.db,
    emulator,
    async close() {
      await emulator.close();
      await t.drop();
    },
  };
}

export async function admin(emulator: RunningEmulator, path: string, body?: unknown, method?: string): Promise<any> {
  const response = await fetch(`${emulator.url}/__emulator${path}`, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as unknown;
  if (!response.ok) throw new Error(`admin ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Every published row count of a database: what a reader could see. */
export async function publishedCounts(db: Db): Promise<Record<string, number>> {
  const tables = [
    "snapshot",
    "snapshot_recipient",
    "snapshot_line",
    "snapshot_reversal",
    "snapshot_refund_event",
    "snapshot_page",
  ] as const;
  const out: Record<string, number> = {};
  for (const table of tables) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}
