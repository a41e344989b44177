import { describe, expect, it } from "vitest";
import { toProgressView } from "@/app/(desk)/payouts/progress-view";
import type { SnapshotPullView } from "@/db/queries/snapshots";

/** What the browser is told of a pull stopped by an error the pull could not classify. */

function pull(status: SnapshotPullView["status"]): SnapshotPullView {
  return {
    id: "pull-1",
    gameId: "g1",
    window: { startMs: Date.parse("2026-03-01T00:00:00Z"), endMs: Date.parse("2026-04-01T00:00:00Z") },
    status,
    phase: "reading",
    via: "web",
    requestedByEmail: "finance@payout-desk.test",
    requestedAt: new Date("2026-04-02T09:00:00Z"),
    startedAt: new Date("2026-04-02T09:00:01Z"),
    finishedAt: status === "failed" ? new Date("2026-04-02T09:05:00Z") : null,
    heartbeatAt: new Date("2026-04-02T09:04:59Z"),
    attempts: 3,
    snapshotId: null,
    pagesFetched: 4,
    pagesEstimated: 10,
    recipientsFetched: 40,
    recipientsTotal: 100,
    linesFetched: 400,
    reversalsFetched: 2,
    requests: 5,
    rateLimited: 0,
    retries: 2,
    subWindows: 1,
    etaAt: null,
    error: { code: "PULL_ERROR", message: "relation snapshot_line_x does not exist" },
  };
}

describe("a pull stopped by an internal error", () => {
  it("never shows the internal text, and says a retry follows only while one does", () => {
    const retrying = toProgressView(pull("retrying"));
    expect(retrying.error?.message).toBe(
      "The pull stopped on an internal error (logged); it is retried automatically.",
    );
    const failed = toProgressView(pull("failed"));
    expect(failed.error?.message).toBe(
      "The pull stopped on an internal error (logged) and is not retried: take the snapshot again.",
    );
    for (const view of [retrying, failed]) expect(JSON.stringify(view)).not.toContain("snapshot_line_x");
  });
});
