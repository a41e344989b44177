import { afterEach, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { listPayoutStatements } from "@/lib/payouts/statements";
import { GAME, insertSnapshot } from "./fixtures";
import { payWindow, setUpPayoutsDatabase } from "../support/payouts";

/** A payment date is a day: it reads the same whatever time zone the server or the CLI runs in. */

let db: Db;
setUpPayoutsDatabase((t) => {
  db = t.db;
});

const zone = process.env.TZ;
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe("a statement's payment date", () => {
  it("reads as recorded east of UTC, west of it and in UTC", async () => {
    await insertSnapshot(db, { window: "2026-04", recipients: [{ id: 1201, gross: "40.00" }] });
    const paid = await payWindow(db, "2026-04", {
      paid: { on: "2026-04-03", method: "bank_transfer", reference: "WIRE-0403" },
    });
    const batchId = paid[0]?.batchId ?? "";
    for (const tz of ["Pacific/Kiritimati", "Europe/Berlin", "America/Los_Angeles", "UTC"]) {
      process.env.TZ = tz;
      const statements = await listPayoutStatements(db, { gameId: GAME, batchId });
      expect(
        statements.map((s) => [s.recipientPlayerId, s.paidOn]),
        tz,
      ).toEqual([[1201, "2026-04-03"]]);
    }
  });
});
