import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countSnapshotReversals, listSnapshotReversals, listSubWindows } from "@/db/queries/snapshot-evidence";
import { listRecipientLines, listRecipientPayouts } from "@/db/queries/snapshot-recipients";
import { getSnapshot } from "@/db/queries/snapshots";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import { parseWindow } from "@/lib/time";
import { buildScenario, GAME_ID, HEAVY_RECIPIENT_ID, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/** Completeness against the emulator over HTTP: every recipient, every line, every reversal. */

const WINDOW = parseWindow("2026-03-01", "2026-04-01");
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 250,
      renewalsPerRecipient: 4,
      heavyRecipientLines: 1_200,
      reversals: 60,
      unattributed: 30,
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
    }),
  );
});
afterAll(async () => env?.close());

describe("snapshot completeness", () => {
  it(
    "stores every recipient of a 250-recipient window, and " + "all 1,200 lines of a recipient over the inline cap",
    async () => {
      const summary = await takeSnapshotNow(env.db, {
        gameId: GAME_ID,
        window: WINDOW,
        requestedBy: null,
        via: "test",
      });
      expect(summary.recipients).toBe(251);
      // 250 x 4 + 1,200 attributed renewals; 30 unattributed ones are counted but belong to nobody.
      expect(summary.lines).toBe(2_200);
      expect(summary.totals.renewalsSettled).toBe(2_230);
      expect(summary.pages).toBeGreaterThanOrEqual(3);
      expect(summary.builtFrom).toBe("split");

      const page = await listRecipientPayouts(env.db, {
        gameId: GAME_ID,
        snapshotId: summary.snapshotId,
        pageSize: 500,
      });
      expect(page.total).toBe(251);
      expect(new Set(page.rows.map((r) => r.recipientPlayerId)).size).toBe(251);

      const lines = {
        gameId: GAME_ID,
        snapshotId: summary.snapshotId,
        recipientPlayerId: HEAVY_RECIPIENT_ID,
        pageSize: 600,
      };
      const first = await listRecipientLines(env.db, { ...lines, page: 1 });
      const second = await listRecipientLines(env.db, { ...lines, page: 2 });
      expect(first.total).toBe(1_200);
      expect(new Set([...first.rows, ...second.rows].map((r) => r.periodId)).size).toBe(1_200);
      const heavyRow = page.rows.find((r) => r.recipientPlayerId === HEAVY_RECIPIENT_ID);
      expect(heavyRow?.renewalCount).toBe(1_200);
      // 1,200 lines at 10.00, 10% fee, 20% of 9.00 = 1.80 each.
      expect(heavyRow?.grossAttributedUsd).toBe("2160.00");

      const snapshot = await getSnapshot(env.db, { gameId: GAME_ID, snapshotId: summary.snapshotId });
      expect(snapshot?.checks.length).toBeGreaterThan(5);
      expect(snapshot?.checks.every((c) => c.ok)).toBe(true);
      const reversals = await listSnapshotReversals(env.db, {
        gameId: GAME_ID,
        snapshotId: summary.snapshotId,
        limit: 5000,
      });
      expect(reversals.length).toBe(summary.reversals);
      expect(reversals.length).toBeGreaterThan(40);
      // Refunded one second after settling: every reversal nets to zero inside the month.
      expect(reversals.every((r) => r.netsToZeroInWindow && r.events.length === 1)).toBe(true);
      // Reversals of unattributed renewals count in the totals but belong to no recipient.
      expect(snapshot?.totals.refundEventsInWindow).toBe(60);
      expect(snapshot?.totals.renewalsSettledThenFullyReversed).toBe(60);
      expect(reversals.length).toBeLessThanOrEqual(60);
      // A recipient's count is of all their reversals, whatever the list shows.
      const recipientPlayerId = reversals[0]?.recipientPlayerId ?? 0;
      const theirs = reversals.filter((r) => r.recipientPlayerId === recipientPlayerId);
      expect(theirs.length).toBeGreaterThan(0);
      const counted = await countSnapshotReversals(env.db, {
        gameId: GAME_ID,
        snapshotId: summary.snapshotId,
        recipientPlayerId,
      });
      expect(counted).toEqual({ total: theirs.length, netsToZero: theirs.length });

      const parts = await listSubWindows(env.db, { gameId: GAME_ID, snapshotId: summary.snapshotId });
      expect(parts.length).toBeGreaterThanOrEqual(2);
      expect(parts.every((p) => p.scope === "recipient" && p.recipientPlayerId === HEAVY_RECIPIENT_ID)).toBe(true);
    },
  );
});
