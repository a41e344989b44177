import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readAutomation } from "../../lib/webhooks/settings";
import { saveGame } from "../../lib/games/games";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAs } from "../support/next-request";
import { signInAs } from "../support/users";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/headers.js", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  for (const id of ["game-a", "game-b"]) {
    await saveGame(
      t.db,
      {
        id,
        name: id,
        environment: "sandbox",
        baseUrl: "http://127.0.0.1:9",
        secret: `gs_test_${id}_secret`,
        webhookSecrets: [],
      },
      { replace: false, as: { actor: null, via: "cli" } },
    );
  }
});
afterAll(async () => t?.drop());

function form(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.set(k, v);
  return data;
}

describe("a form acts on the game its page showed", () => {
  it("refuses when another tab switched the session to another game since", async () => {
    const { switchGameAction } = await import("../../app/(desk)/actions");
    const { saveAutomationAction } = await import("../../app/(desk)/webhooks/actions");
    actAs(await signInAs(t.db, "admin"));
    await expect(switchGameAction(form({ gameId: "game-a" }))).rejects.toThrow("NEXT_REDIRECT");
    // The page was rendered for game-a; meanwhile the session moved to game-b.
    await expect(switchGameAction(form({ gameId: "game-b" }))).rejects.toThrow("NEXT_REDIRECT");
    const refused = await saveAutomationAction(null, form({ _game: "game-a", form: "automation", autoRefresh: "on" }));
    expect(refused).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(refused.ok ? "" : refused.message).toContain("another tab");
    // Neither game changed.
    const after = await t.db.selectFrom("game").select(["id", "settings"]).orderBy("id").execute();
    for (const row of after) expect(readAutomation(row.settings).autoRefresh).toBe(false);
    // The same form for the game the session is on goes through.
    await expect(
      saveAutomationAction(null, form({ _game: "game-b", form: "automation", autoRefresh: "on" })),
    ).resolves.toMatchObject({ ok: true });
  });

  it("refuses a form naming its game twice when either is not the selected game", async () => {
    const { saveAutomationAction } = await import("../../app/(desk)/webhooks/actions");
    actAs(await signInAs(t.db, "admin"));
    const { switchGameAction } = await import("../../app/(desk)/actions");
    await expect(switchGameAction(form({ gameId: "game-b" }))).rejects.toThrow("NEXT_REDIRECT");
    // A dialog adds the page's game beside the form's own: both are checked.
    const twice = form({ form: "automation", autoRefresh: "on" });
    twice.append("_game", "game-b");
    twice.append("_game", "game-a");
    await expect(saveAutomationAction(null, twice)).resolves.toMatchObject({ ok: false, code: "CONFLICT" });
  });
});
