import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSupportRefundLimit, saveSupportRefundLimit } from "@/lib/refunds/settings";
import { applyTestEnv, createTestDatabase, type TestDatabase } from "../support/db";

/** The support refund limit saved from a page opened before another admin changed it: refused, not overwritten. */

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});
afterAll(async () => t?.drop());

const admin = (n: number) => ({
  actor: { id: `admin-${n}`, email: `admin${n}@payout-desk.test` },
  via: "web" as const,
});

describe("saving the support refund limit from a page opened earlier", () => {
  it("refuses a save over a limit another admin set since, and saves from a fresh page", async () => {
    // Both admins open the page showing the default.
    const opened = (await readSupportRefundLimit(t.db)).updatedAt?.toISOString() ?? "";
    expect(opened).toBe("");
    await saveSupportRefundLimit(t.db, "100.00", admin(2), opened);
    await expect(saveSupportRefundLimit(t.db, "75.00", admin(1), opened)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(
        /^admin2@payout-desk\.test changed the support refund limit after this page was opened \(now USD 100\.00/,
      ),
    });
    expect((await readSupportRefundLimit(t.db)).amountUsd).toBe("100.00");
    const drawn = (await readSupportRefundLimit(t.db)).updatedAt?.toISOString() ?? "";
    await expect(saveSupportRefundLimit(t.db, "75.00", admin(1), drawn)).resolves.toMatchObject({ amountUsd: "75.00" });
    const lines = await t.db
      .selectFrom("audit_log")
      .select(["actor_email", "detail"])
      .where("action", "=", "settings.support_refund_limit")
      .orderBy("id")
      .execute();
    // The refused save left no line.
    expect(lines.map((l) => [l.actor_email, l.detail])).toEqual([
      ["admin2@payout-desk.test", { from: "50.00", to: "100.00" }],
      ["admin1@payout-desk.test", { from: "100.00", to: "75.00" }],
    ]);
  });
});
