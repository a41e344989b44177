import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGameSettings } from "@/db/queries/games";
import { DEMO_GAME_ID } from "@/emulator/scenario/demo";
import { registerDemoGame } from "@/bin/demo";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

/** Every `npm start` registers the demo game again (its emulator's address changes): what an admin set on it stays. */

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});
afterAll(async () => t?.drop());

describe("the demo game registered again at a start", () => {
  it("keeps the settings an admin changed, and sets the demo's own", async () => {
    await registerDemoGame(t.db, "http://127.0.0.1:4010");
    const automation = { pullCurrentMonthDaily: false };
    await t.db
      .updateTable("game")
      .set({ settings: JSON.stringify({ pacing: "on", demo: true, automation, quickbooksDateOrder: "dmy" }) })
      .where("id", "=", DEMO_GAME_ID)
      .execute();
    await registerDemoGame(t.db, "http://127.0.0.1:4020", { pacing: "off" });
    expect(await readGameSettings(t.db, DEMO_GAME_ID)).toEqual({
      pacing: "off",
      demo: true,
      automation,
      quickbooksDateOrder: "dmy",
    });
  });
});
