import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRecipientWindows, listTopRecipients, searchRecipients } from "@/db/queries/payouts";
import { listSnapshotWindows } from "@/db/queries/snapshots";
import { monthWindow } from "@/lib/time";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { GAME, insertGame, insertSnapshot } from "./fixtures";

/** Reads across windows take each window's latest snapshot version only: a re-pulled month is never counted twice. */

let t: TestDatabase;
let latestMay: string;

beforeAll(async () => {
  t = await createTestDatabase();
  await insertGame(t.db);
  await insertSnapshot(t.db, { window: "2026-04", recipients: [{ id: 7001, gross: "10.00" }] });
  await insertSnapshot(t.db, {
    window: "2026-05",
    recipients: [
      { id: 7001, gross: "20.00" },
      { id: 7002, gross: "5.00" },
    ],
  });
  latestMay = (
    await insertSnapshot(t.db, {
      window: "2026-05",
      recipients: [
        { id: 7001, gross: "25.00" },
        { id: 7002, gross: "5.00" },
      ],
    })
  ).id;
  // Another game's newer version of the same month changes nothing here.
  await insertGame(t.db, "other-game");
  await insertSnapshot(t.db, { window: "2026-05", recipients: [{ id: 7001, gross: "99.00" }] }, "other-game");
});
afterAll(async () => t?.drop());

describe("latest snapshot version of each window", () => {
  it("the windows overview lists each window once, at its latest version, with how many versions exist", async () => {
    const windows = await listSnapshotWindows(t.db, { gameId: GAME });
    expect(windows.map((w) => [w.version, w.versions])).toEqual([
      [2, 2],
      [1, 1],
    ]);
    expect(windows[0]!.id).toBe(latestMay);
  });

  it("top recipients and a recipient's history read the latest version only", async () => {
    const top = await listTopRecipients(t.db, {
      gameId: GAME,
      windows: [monthWindow("2026-04"), monthWindow("2026-05")],
    });
    expect(top.find((r) => r.recipientPlayerId === 7001)?.grossAttributedUsd).toBe("35.00");
    const history = await listRecipientWindows(t.db, { gameId: GAME, recipientPlayerId: 7001 });
    expect(history.map((h) => [h.snapshotVersion, h.grossAttributedUsd])).toEqual([
      [2, "25.00"],
      [1, "10.00"],
    ]);
  });

  it("top recipients add up each window's net in cents, as their statements do", async () => {
    // Reported to the tenth of a cent: each window's statement pays 0.01, 0.02 in all (not a rounded 0.010).
    await insertSnapshot(t.db, { window: "2026-09", recipients: [{ id: 7004, gross: "0.005" }] });
    await insertSnapshot(t.db, { window: "2026-10", recipients: [{ id: 7004, gross: "0.005" }] });
    const top = await listTopRecipients(t.db, {
      gameId: GAME,
      windows: [monthWindow("2026-09"), monthWindow("2026-10")],
    });
    expect(top.map((r) => [r.recipientPlayerId, r.netAttributedUsd, r.grossAttributedUsd])).toEqual([
      [7004, "0.02", "0.02"],
    ]);
  });

  it("the recipients list names a recipient as the newest window does, not by the alphabet", async () => {
    await insertSnapshot(t.db, { window: "2026-07", recipients: [{ id: 7003, gross: "3.00", name: "Zed Former" }] });
    await insertSnapshot(t.db, { window: "2026-08", recipients: [{ id: 7003, gross: "4.00", name: "Anna Current" }] });
    const found = await searchRecipients(t.db, { gameId: GAME, q: "anna" });
    expect(found.rows.map((r) => [r.recipientPlayerId, r.playerName])).toEqual([[7003, "Anna Current"]]);
    const byId = await searchRecipients(t.db, { gameId: GAME, q: "7003" });
    expect(byId.rows.map((r) => r.playerName)).toEqual(["Anna Current"]);
    // Found by the name they had before, shown by the one they have now.
    const byFormer = await searchRecipients(t.db, { gameId: GAME, q: "zed" });
    expect(byFormer.rows.map((r) => [r.recipientPlayerId, r.playerName])).toEqual([[7003, "Anna Current"]]);
  });
});
