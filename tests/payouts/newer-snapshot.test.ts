import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { getSnapshot } from "@/db/queries/snapshots";
import { windowFlagsOf } from "@/lib/payouts/flags";
import { setUpPayoutsDatabase } from "../support/payouts";
import { GAME, insertSnapshot } from "./fixtures";

/**
 * Each snapshot version is compared with the one before it. A batch paid from version 1 is told of a drift in any later
 * version, not only in the latest: version 3 reproducing version 2 does not make version 2's drift from what was paid
 * disappear.
 */

let db: Db;
setUpPayoutsDatabase((t) => {
  db = t.db;
});

async function newerSnapshotDetail(snapshotId: string): Promise<string | undefined> {
  const snapshot = await getSnapshot(db, { gameId: GAME, snapshotId });
  if (!snapshot) throw new Error("no snapshot");
  return (await windowFlagsOf(db, snapshot)).find((f) => f.flag === "newer_snapshot")?.detail;
}

describe("the newer snapshot flag", () => {
  it("names a drift in any version after the one paid, also when the latest reproduced the one before it", async () => {
    const paid = await insertSnapshot(db, { window: "2026-05", recipients: [{ id: 1, gross: "40.00" }] });
    const drifted = await insertSnapshot(db, { window: "2026-05", recipients: [{ id: 1, gross: "44.00" }], drift: 3 });
    expect(await newerSnapshotDetail(paid.id)).toBe(
      "version 2 is newer than version 1, with 3 differences from its previous version",
    );
    // Version 3 reproduces version 2: still 4.00 more than version 1 said.
    await insertSnapshot(db, { window: "2026-05", recipients: [{ id: 1, gross: "44.00" }], drift: "reproduced" });
    expect(await newerSnapshotDetail(paid.id)).toBe(
      "version 3 is newer than version 1; version 2 drifted from the version before (3 differences): the figures " +
        "may differ from version 1's",
    );
    // A batch paid from version 2 is told of nothing but the newer version.
    expect(await newerSnapshotDetail(drifted.id)).toBe("version 3 is newer than version 2");
  });
});
