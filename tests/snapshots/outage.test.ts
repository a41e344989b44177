import type { KyselyPlugin } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@/db";
import type { FetchLike, ServiceClientConfig } from "@/lib/service/transport";
import { compareVersions } from "@/lib/snapshots/drift";
import { PullFailedError, summarizeSnapshot, takeSnapshotNow } from "@/lib/snapshots/pull";
import { loadComparable } from "@/lib/snapshots/store";
import { monthWindow } from "@/lib/time";
import { saveGame } from "@/lib/games/games";
import { admin, buildScenario, GAME_ID, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";
import { GAME_SECRET } from "./scenario";

/**
 * A pull rides out an outage of the reporting routes: every failure that may pass (429, 500, 502, 503, a dropped
 * answer, a timeout) is retried on the page it hit, after retry_after or a capped backoff, within the retry budget;
 * the pull goes on from that page and publishes what a quiet pull publishes. A refusal that cannot change ends it at
 * once, with the reason. Time is a fake clock moved by the waits, so nothing here waits for real.
 */

const WINDOW = monthWindow("2026-03");
const request = { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "test" };
const ROUTE = "/api/subscriptions/reporting/attribution";
const BUDGET_MS = 15 * 60_000;
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      // Three pages of recipients, and one recipient past the 500-line inline cap, read over sub-windows.
      recipients: 250,
      renewalsPerRecipient: 4,
      heavyRecipientLines: 1_200,
      reversals: 40,
      refundDelayMs: 2 * 86_400_000,
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
      clock: "2026-04-10T00:00:00Z",
    }),
  );
});
afterAll(async () => env?.close());

/** A clock that only the client's waits move, and a fetch that records every request and its outcome. */
function instrumented() {
  let clock = Date.parse("2026-04-10T00:00:00Z");
  const sleeps: number[] = [];
  const requests: { url: string; status: number | "failed" }[] = [];
  const fetch: FetchLike = async (url, init) => {
    try {
      const response = await globalThis.fetch(url, init);
      requests.push({ url: pathOf(url), status: response.status });
      return response;
    } catch (error) {
      requests.push({ url: pathOf(url), status: "failed" });
      throw error;
    }
  };
  const overrides: Partial<ServiceClientConfig> = {
    fetch,
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    // The emulator's hang (30 s) outlasts this, so a hang is a timeout; an answer slowed by a busy machine is not (at
    // 1 s, a quiet pull beside both end-to-end projects timed out and retried).
    timeoutMs: 10_000,
  };
  return { overrides, sleeps, requests, elapsed: () => clock - Date.parse("2026-04-10T00:00:00Z") };
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

const ok = (requests: { url: string; status: number | "failed" }[]) =>
  requests.filter((r) => r.status === 200).map((r) => r.url);

describe("a pull during an outage of the reporting routes", () => {
  it(
    "retries ten consecutive failures of every kind on the " +
      "page they hit and publishes what a quiet pull publishes",
    async () => {
      // Requests are counted in the order they leave: one page after another, none asked for ahead.
      const quietRun = instrumented();
      const quiet = await takeSnapshotNow(env.db, request, { clientOverrides: quietRun.overrides, lookahead: 0 });
      expect(quiet.subWindows.length).toBeGreaterThan(0);
      expect(quiet.pages).toBeGreaterThan(4);
      expect(quietRun.sleeps).toEqual([]);

      const stormy = instrumented();
      const storm = [
        { fault: "429", retry_after: 120 },
        { fault: "500" },
        { fault: "drop" },
        { fault: "502" },
        { fault: "hang", hang_ms: 30_000 },
        { fault: "503" },
        { fault: "429", retry_after: 90 },
        { fault: "drop" },
        { fault: "500" },
        { fault: "hang", hang_ms: 30_000 },
      ];
      let armed = false;
      const phases: string[] = [];
      const second = await takeSnapshotNow(env.db, request, {
        clientOverrides: stormy.overrides,
        lookahead: 0,
        onProgress: (progress) => phases.push(progress.phase),
        // Part-way: two pages are stored when the outage starts.
        onPage: async (page) => {
          if (page.seq !== 2 || armed) return;
          armed = true;
          for (const fault of storm) await admin(env.emulator, "/faults", { route: ROUTE, count: 1, ...fault });
        },
      });
      expect(armed).toBe(true);
      expect((await admin(env.emulator, "/faults")).faults).toEqual([]);

      // The ten failures came one after another, on the third page, and each was followed by the same page again.
      const failures = stormy.requests.filter((r) => r.status !== 200);
      expect(failures).toHaveLength(10);
      const firstFailure = stormy.requests.findIndex((r) => r.status !== 200);
      expect(firstFailure).toBe(2);
      const outage = stormy.requests.slice(firstFailure, firstFailure + 11);
      expect(new Set(outage.map((r) => r.url)).size).toBe(1);
      expect(outage.at(-1)?.status).toBe(200);
      // Never from the start: the pages read are exactly the quiet pull's, in the same order, none twice.
      expect(ok(stormy.requests)).toEqual(ok(quietRun.requests));

      // retry_after followed; other waits a capped, jittered backoff; all within the budget.
      expect(stormy.sleeps).toHaveLength(10);
      expect(stormy.sleeps[0]).toBeGreaterThanOrEqual(120_000);
      expect(stormy.sleeps[6]).toBeGreaterThanOrEqual(90_000);
      const backoffs = stormy.sleeps.filter((_, i) => i !== 0 && i !== 6);
      expect(backoffs.every((ms) => ms >= 0 && ms <= 15_000)).toBe(true);
      expect(stormy.elapsed()).toBeLessThanOrEqual(BUDGET_MS);

      // The outage shows on the pull while it lasts.
      expect(phases).toContain("the service answered 429; asking for the same page again (attempt 2)");
      expect(phases).toContain("the service failed (timeout); asking for the same page again (attempt 6)");
      expect(phases.filter((p) => p.includes("asking for the same page again"))).toHaveLength(10);

      expect(second.rateLimited).toBe(2);
      expect(second.retries).toBe(10);
      expect(second.drift).toEqual({ status: "reproduced", differences: 0, comparedTo: quiet.snapshotId });
      // Figure for figure: every row of both versions, notices included.
      expect(
        compareVersions(
          await loadComparable(env.db, quiet.snapshotId),
          await loadComparable(env.db, second.snapshotId),
        ),
      ).toEqual([]);
      expect({ ...second.totals }).toEqual({ ...quiet.totals });
      expect([second.recipients, second.lines, second.reversals, second.pages, second.subWindows]).toEqual([
        quiet.recipients,
        quiet.lines,
        quiet.reversals,
        quiet.pages,
        quiet.subWindows,
      ]);
    },
  );

  /** Takes the snapshot from the command line while `fault` answers the report, and returns how it failed. */
  async function failedUnder(run: ReturnType<typeof instrumented>, fault: Record<string, unknown>) {
    await admin(env.emulator, "/faults", { route: ROUTE, ...fault });
    try {
      const failure = await takeSnapshotNow(env.db, request, { clientOverrides: run.overrides }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(PullFailedError);
      return failure as PullFailedError;
    } finally {
      await admin(env.emulator, "/faults", undefined, "DELETE");
    }
  }

  it("gives up when an outage outlasts the retry budget, naming it, and publishes nothing", async () => {
    const before = await env.db.selectFrom("snapshot").select("id").execute();
    const run = instrumented();
    const error = await failedUnder(run, { fault: "429", retry_after: 400, count: 50 });
    expect(error.final).toBe(true);
    expect(error.code).toBe("rate_limit_exceeded");
    expect(error.retryAfterMs).toBe(400_000);
    // The command line has no later attempt to queue after the wait (a worker's pull has: long-retry-after.test.ts).
    const reason = /^The service asked for a wait of 6m 40s before the next request, past what was left of one page's /;
    expect(error.message).toMatch(reason);
    expect(error.message).toMatch(
      /retry budget \(15m 00s, 3 attempts\): the service is rate limiting this game \(HTTP 429, /,
    );
    // The command line's pull has no later attempt: it says when to take the snapshot again.
    expect(error.message).toMatch(/\. Take the snapshot again after \d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    // Two waits of 400 s fit in 15 minutes, a third would not.
    expect(run.sleeps).toHaveLength(2);
    expect(run.elapsed()).toBeLessThanOrEqual(BUDGET_MS);
    const pull = await env.db
      .selectFrom("snapshot_pull")
      .select(["status", "error_code", "error_message"])
      .orderBy("requested_at", "desc")
      .executeTakeFirstOrThrow();
    expect(pull).toMatchObject({ status: "failed", error_code: "rate_limit_exceeded" });
    expect(pull.error_message).toMatch(reason);
    expect(await env.db.selectFrom("snapshot").select("id").execute()).toHaveLength(before.length);
  });

  it("gives up when failures outlast the retry budget, naming it", async () => {
    const run = instrumented();
    // More 503s than 15 minutes of backoff (250 ms doubling to 15 s) asks for.
    const error = await failedUnder(run, { fault: "503", count: 200 });
    expect(error).toMatchObject({ final: true, retryAfterMs: null });
    expect(error.message).toMatch(
      /^The service kept failing for 15m 00s, the retry budget of one page \(\d+ attempts\); /,
    );
    expect(error.message).toMatch(/last: the service is unavailable or paused for maintenance\. .*\(HTTP 503/);
    expect(run.elapsed()).toBeLessThanOrEqual(BUDGET_MS);
  });

  it("ends at once on a refusal that cannot change, with the reason", async () => {
    const run = instrumented();
    const failure = await takeSnapshotNow(env.db, request, {
      clientOverrides: { ...run.overrides, gameSecret: "gs_not_this_game" },
    }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(PullFailedError);
    const error = failure as PullFailedError;
    expect(error.final).toBe(true);
    expect(error.code).toBe("INVALID_GAME_SECRET");
    expect(error.message).toMatch(/^The service refused the report: the service rejected this game's secret\. /);
    expect(error.message).toMatch(/An admin must update it under Settings → Games\. \(HTTP 401, INVALID_GAME_SECRET/);
    expect(error.message).not.toMatch(/\/api\/|GET /);
    expect(run.requests).toHaveLength(1);
    expect(run.sleeps).toEqual([]);
  });

  it("ends at once, storing nothing, when the secret saved for the game answers for another game", async () => {
    // The same service game saved again under another id (another game's secret pasted in Settings → Games).
    await saveGame(
      env.db,
      {
        id: "snap-game-copy",
        name: "Another game",
        environment: "sandbox",
        baseUrl: env.emulator.url,
        secret: GAME_SECRET,
        webhookSecrets: [],
      },
      { replace: false, as: { actor: null, via: "cli" } },
    );
    const copy = { ...request, gameId: "snap-game-copy" };
    const failure = await takeSnapshotNow(env.db, copy).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(PullFailedError);
    expect((failure as PullFailedError).final).toBe(true);
    expect((failure as PullFailedError).message).toBe(
      "The service answered for game snap-game, not snap-game-copy: the game secret saved for snap-game-copy is " +
        "another game's. An admin updates it under Settings → Games; nothing was stored.",
    );
    const stored = await env.db.selectFrom("snapshot").select("id").where("game_id", "=", "snap-game-copy").execute();
    expect(stored).toEqual([]);
  });

  it("stays published when what follows its publishing fails: not recorded as a failed pull", async () => {
    // The database drops the connection as the summary of the snapshot just published is read.
    const summaryFails: KyselyPlugin = {
      transformQuery({ node }) {
        if (node.kind === "SelectQueryNode" && JSON.stringify(node.from).includes('"snapshot_sub_window"'))
          throw new Error("Connection terminated unexpectedly");
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const march = { ...request, window: monthWindow("2026-02") };
    const failing = createDb(env.t.url, { max: 4, plugins: [summaryFails] });
    const failure = await takeSnapshotNow(failing, march)
      .then(
        () => null,
        (error: unknown) => error,
      )
      .finally(() => failing.destroy());
    expect(failure).toBeInstanceOf(PullFailedError);
    expect((failure as PullFailedError).final).toBe(false);
    expect((failure as PullFailedError).message).toMatch(
      /^The snapshot was published \(version 1\), but reading what it holds failed: Connection terminated unexpected/,
    );
    const pull = await env.db
      .selectFrom("snapshot_pull")
      .select(["id", "status", "snapshot_id"])
      .where("window_start", "=", new Date(march.window.startMs))
      .executeTakeFirstOrThrow();
    expect(pull).toMatchObject({ status: "complete", snapshot_id: expect.any(String) });
    const audited = await env.db
      .selectFrom("audit_log")
      .select(["action", "outcome"])
      .where("target", "=", pull.id)
      .execute();
    expect(audited.filter((a) => a.action === "snapshot.pull" && a.outcome === "failed")).toEqual([]);
    // What was published reads as usual once the database answers again.
    expect(await summarizeSnapshot(env.db, pull.snapshot_id ?? "")).toMatchObject({ pullId: pull.id, version: 1 });
  });
});
