import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getLatestSnapshot, getSnapshot, listSnapshotDrift, listSnapshotVersions } from "@/db/queries/snapshots";
import { compareVersions } from "@/lib/snapshots/drift";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import { markWindowStale } from "@/lib/snapshots/stale";
import { loadComparable } from "@/lib/snapshots/store";
import { monthWindow, parseWindow } from "@/lib/time";
import { admin, buildScenario, GAME_ID, HEAVY_RECIPIENT_ID, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/**
 * "a closed window is reproducible": pulled again, field by field the same, even through 429s, 503s and dropped
 * answers; a figure the service changes afterwards shows up as drift. Staleness marks follow the service's changes.
 */

const WINDOW = monthWindow("2026-03");
const request = { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "test" };
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 250,
      renewalsPerRecipient: 4,
      heavyRecipientLines: 700,
      reversals: 40,
      refundDelayMs: 2 * 86_400_000,
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
      clock: "2026-04-10T00:00:00Z",
    }),
  );
});
afterAll(async () => env?.close());

describe("reproducibility of a closed window", () => {
  it(
    "survives injected 429s, 503s and dropped responses " + "with the same final snapshot, and shows no drift",
    async () => {
      const first = await takeSnapshotNow(env.db, request);
      expect(first.version).toBe(1);
      expect(first.drift.status).toBe("first_version");
      expect(first.windowClosed).toBe(true);

      const route = "/api/subscriptions/reporting/attribution";
      await admin(env.emulator, "/faults", { route, fault: "429", count: 2, retry_after: 0.05 });
      await admin(env.emulator, "/faults", { route, fault: "503", count: 2 });
      await admin(env.emulator, "/faults", { route, fault: "drop", count: 2 });
      const second = await takeSnapshotNow(env.db, request, { clientOverrides: { maxRetries: 8, backoffBaseMs: 20 } });
      expect((await admin(env.emulator, "/faults")).faults).toEqual([]);
      expect(second.version).toBe(2);
      expect(second.rateLimited).toBe(2);
      expect(second.retries).toBeGreaterThanOrEqual(6);
      expect(second.drift).toEqual({ status: "reproduced", differences: 0, comparedTo: first.snapshotId });

      // Not just the compared figures: every row of both versions, notices included.
      const differences = compareVersions(
        await loadComparable(env.db, first.snapshotId),
        await loadComparable(env.db, second.snapshotId),
      );
      expect(differences).toEqual([]);
      expect({ ...second.totals }).toEqual({ ...first.totals });
      expect([second.recipients, second.lines, second.reversals, second.pages]).toEqual([
        first.recipients,
        first.lines,
        first.reversals,
        first.pages,
      ]);
    },
  );

  it("records a figure the service changed as drift, shown on the new version", async () => {
    const line = await env.db
      .selectFrom("snapshot_line")
      .select(["period_id", "attributed_amount_usd"])
      .where("recipient_player_id", "=", String(HEAVY_RECIPIENT_ID))
      .orderBy("period_id")
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(line.attributed_amount_usd).toBe("1.80");
    await admin(env.emulator, `/periods/${line.period_id}`, { attributed_amount_usd: "1.95" }, "PATCH");

    const pulled = await takeSnapshotNow(env.db, request);
    expect(pulled.drift.status).toBe("drift");
    const drift = await listSnapshotDrift(env.db, { gameId: GAME_ID, snapshotId: pulled.snapshotId });
    const fields = drift.map((d) => `${d.entity}:${d.entityKey}:${d.field}:${d.previousValue}->${d.currentValue}`);
    expect(fields).toContain(`line:${line.period_id}:attributed_amount_usd:1.8->1.95`);
    expect(fields).toContain(`recipient:${HEAVY_RECIPIENT_ID}:gross_attributed_usd:1260->1260.15`);
    expect(fields.some((f) => f.startsWith("totals:window:gross_attributed_usd:"))).toBe(true);
    expect(drift.every((d) => d.severity === "drift")).toBe(true);

    const latest = await getLatestSnapshot(env.db, { gameId: GAME_ID, window: WINDOW });
    expect(latest?.id).toBe(pulled.snapshotId);
    expect(latest?.drift.status).toBe("drift");
    // Every version is kept.
    expect((await listSnapshotVersions(env.db, { gameId: GAME_ID, window: WINDOW })).map((v) => v.version)).toEqual([
      3, 2, 1,
    ]);
  });

  it("marks the snapshot of the window holding an instant stale until a newer version is taken", async () => {
    const before = await getLatestSnapshot(env.db, { gameId: GAME_ID, window: WINDOW });
    expect(before?.stale).toBeNull();
    const windows = await markWindowStale(env.db, GAME_ID, "2026-03-15T10:00:00Z", "subscription.refunded", {
      subscriptionId: "SUB_1700000000_00000001",
    });
    expect(windows).toEqual([WINDOW]);
    // Another window's instant does not touch this one.
    expect(await markWindowStale(env.db, GAME_ID, "2026-04-01T00:00:00Z", "subscription.renewed")).toEqual([]);
    // A window with no snapshot yet whose first pull is queued: that pull may read only up to before the change (an
    // open window, read up to a minute before it starts), so the window is named, for a re-pull.
    const april = parseWindow("2026-04-01", "2026-05-01");
    const queued = randomUUID();
    await env.db
      .insertInto("snapshot_pull")
      .values({
        id: queued,
        game_id: GAME_ID,
        window_start: new Date(april.startMs),
        window_end: new Date(april.endMs),
        status: "queued",
        via: "test",
        requested_by_id: null,
        requested_by_email: null,
        snapshot_id: null,
      })
      .execute();
    expect(await markWindowStale(env.db, GAME_ID, "2026-04-02T00:00:00Z", "subscription.renewed")).toEqual([april]);
    await env.db.deleteFrom("snapshot_pull").where("id", "=", queued).execute();

    const stale = await getSnapshot(env.db, { gameId: GAME_ID, snapshotId: before!.id });
    expect(stale?.stale?.reason).toBe("subscription.refunded");
    expect(stale?.stale?.marks).toBe(1);

    const fresh = await takeSnapshotNow(env.db, request);
    expect((await getSnapshot(env.db, { gameId: GAME_ID, snapshotId: fresh.snapshotId }))?.stale).toBeNull();
    // The older versions stay stale.
    expect((await getSnapshot(env.db, { gameId: GAME_ID, snapshotId: before!.id }))?.stale).not.toBeNull();
  });

  it("refuses to change or delete a published snapshot", async () => {
    const latest = await getLatestSnapshot(env.db, { gameId: GAME_ID, window: WINDOW });
    await expect(
      env.db.updateTable("snapshot").set({ net_attributed_usd: "0" }).where("id", "=", latest!.id).execute(),
    ).rejects.toThrow(/immutable/);
    await expect(env.db.deleteFrom("snapshot_line").where("snapshot_id", "=", latest!.id).execute()).rejects.toThrow(
      /immutable/,
    );
    await expect(sql`truncate snapshot_recipient`.execute(env.db)).rejects.toThrow(/immutable/);
    // A pull deletes rows of its own snapshot before it is published, never after.
    await expect(env.db.deleteFrom("snapshot_page").where("snapshot_id", "=", latest!.id).execute()).rejects.toThrow(
      /immutable/,
    );
    await expect(env.db.deleteFrom("snapshot").where("id", "=", latest!.id).execute()).rejects.toThrow(/immutable/);
  });

  it("does not compare versions of a window that was still open", async () => {
    // The emulator clock is 2026-04-10: this window is open.
    const open = parseWindow("2026-04-01", "2026-05-01");
    const first = await takeSnapshotNow(env.db, { ...request, window: open });
    expect(first.windowClosed).toBe(false);
    const second = await takeSnapshotNow(env.db, { ...request, window: open });
    expect(second.drift.status).toBe("not_comparable");
  });
});
