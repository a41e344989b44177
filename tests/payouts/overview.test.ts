import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listWindowOverview } from "@/lib/payouts/overview";
import { payWindow } from "../support/payouts";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { GAME, insertGame, insertSnapshot } from "./fixtures";

/** The Payouts overview says a snapshot is complete only when it was pulled after its window ended. */
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await insertGame(t.db);
});
afterAll(async () => t?.drop());

describe("the windows overview", () => {
  it("tells a snapshot pulled while its window was open from a complete one", async () => {
    const recipients = [{ id: 1, gross: "10.00" }];
    await insertSnapshot(t.db, { window: "2026-09", recipients });
    await insertSnapshot(t.db, { window: "2026-10", recipients, closed: false });
    await insertSnapshot(t.db, { window: "2026-11", recipients, closed: false });
    const now = Date.parse("2026-11-20T12:00:00Z");
    const rows = await listWindowOverview(t.db, { gameId: GAME, months: 3, now });
    const stateOf = (month: string) =>
      rows.find((r) => new Date(r.window.startMs).toISOString().startsWith(month))?.state;
    expect(stateOf("2026-09")).toBe("complete");
    // Pulled during October, read since only up to then: its last days are missing.
    expect(stateOf("2026-10")).toBe("partial");
    expect(stateOf("2026-11")).toBe("open");
  });

  it("names the statements a paid batch holds, still owed", async () => {
    await insertSnapshot(t.db, {
      window: "2026-08",
      recipients: [
        { id: 1, gross: "20.00" },
        { id: 2, gross: "30.00" },
      ],
    });
    await payWindow(t.db, "2026-08", { hold: [2] });
    const rows = await listWindowOverview(t.db, { gameId: GAME, months: 4, now: Date.parse("2026-11-20T12:00:00Z") });
    const august = rows.find((r) => new Date(r.window.startMs).toISOString().startsWith("2026-08"));
    expect(august?.batch).toMatchObject({ status: "paid", held: 1 });
  });
});
