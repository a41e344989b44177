import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { readPayoutSettings, savePayoutSettings } from "@/lib/payouts/settings";
import { setUpPayoutsDatabase } from "../support/payouts";
import { actor } from "./fixtures";

let db: Db;
setUpPayoutsDatabase((t) => {
  db = t.db;
});

describe("saving the payout rules from a page opened earlier", () => {
  it("refuses a save that would set back a rule another admin changed since, and saves from a fresh page", async () => {
    const first = { actor: actor("admin"), via: "web" as const };
    const second = { actor: { id: "admin-2", email: "admin2@payout-desk.test" }, via: "web" as const };
    await savePayoutSettings(db, { twoPersonRule: false, minPayoutUsd: "10.00" }, first);
    // Both admins open the page with the rule off; the second turns it on.
    const opened = (await readPayoutSettings(db)).updatedAt?.toISOString() ?? "";
    await savePayoutSettings(db, { twoPersonRule: true, minPayoutUsd: "10.00", drawnAt: opened }, second);
    const turnedOn = await readPayoutSettings(db);

    // The first only meant to change the minimum, but the form also sends the rule as it was drawn.
    await expect(
      savePayoutSettings(db, { twoPersonRule: false, minPayoutUsd: "25.00", drawnAt: opened }, first),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/^admin2@payout-desk\.test changed the payout rules after this page was opened/),
    });
    expect(await readPayoutSettings(db)).toMatchObject({ twoPersonRule: true, minPayoutUsd: "10.00" });

    const drawn = turnedOn.updatedAt?.toISOString() ?? "";
    await expect(
      savePayoutSettings(db, { twoPersonRule: true, minPayoutUsd: "25.00", drawnAt: drawn }, first),
    ).resolves.toMatchObject({ twoPersonRule: true, minPayoutUsd: "25.00" });
  });
});
