import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FetchLike } from "@/lib/service/transport";
import { compareVersions } from "@/lib/snapshots/drift";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import { loadComparable } from "@/lib/snapshots/store";
import { monthWindow } from "@/lib/time";
import { buildScenario, GAME_ID, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/**
 * The spec says only "Timestamps are ISO 8601"; a service writing microseconds (`.123456Z`) is within it. A pull of
 * such answers publishes what a pull of the same answers to the millisecond publishes: each instant to its
 * millisecond, every renewal and refund in the same window.
 */

const WINDOW = monthWindow("2026-03");
const request = { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "test" };
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 40,
      renewalsPerRecipient: 3,
      reversals: 12,
      refundDelayMs: 2 * 86_400_000,
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
      clock: "2026-04-10T00:00:00Z",
    }),
  );
});
afterAll(async () => env?.close());

/** Every timestamp in an answer gets six digits of fraction, the extra three below its millisecond. */
function microsecondService() {
  let rewritten = 0;
  const fetch: FetchLike = async (url, init) => {
    const response = await globalThis.fetch(url, init);
    const text = await response.text();
    const fine = text.replace(/("\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{3})?Z"/g, (_, seconds, ms) => {
      rewritten += 1;
      return `${seconds}${ms ?? ".000"}999Z"`;
    });
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    headers.delete("content-encoding");
    return new Response(fine, { status: response.status, statusText: response.statusText, headers });
  };
  return { fetch, rewritten: () => rewritten };
}

describe("a service writing timestamps finer than a millisecond", () => {
  it("is read to the millisecond and publishes what a millisecond service publishes", async () => {
    const plain = await takeSnapshotNow(env.db, request, {});
    const service = microsecondService();
    const fine = await takeSnapshotNow(env.db, request, { clientOverrides: { fetch: service.fetch } });

    // Paid and refunded instants, the report's window and its generated_at all came with six digits.
    expect(service.rewritten()).toBeGreaterThan(2 * plain.lines);
    expect(plain.lines).toBeGreaterThan(100);
    expect(plain.reversals).toBeGreaterThan(0);
    expect(fine.drift).toEqual({ status: "reproduced", differences: 0, comparedTo: plain.snapshotId });
    expect(
      compareVersions(await loadComparable(env.db, plain.snapshotId), await loadComparable(env.db, fine.snapshotId)),
    ).toEqual([]);
    expect({ ...fine.totals }).toEqual({ ...plain.totals });
    expect([fine.recipients, fine.lines, fine.reversals]).toEqual([plain.recipients, plain.lines, plain.reversals]);

    // Stored to the millisecond: the lines of both versions hold the same instants.
    const paidAt = async (snapshotId: string) =>
      (
        await env.db
          .selectFrom("snapshot_line")
          .select("paid_at")
          .where("snapshot_id", "=", snapshotId)
          .orderBy("period_id")
          .execute()
      ).map((row) => row.paid_at?.toISOString());
    expect(await paidAt(fine.snapshotId)).toEqual(await paidAt(plain.snapshotId));
  });
});
