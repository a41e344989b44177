import { AsyncLocalStorage } from "node:async_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodyHeldInContext } from "@/lib/snapshots/capture";
import { createReportSource } from "@/lib/snapshots/pull";
import { parseWindow, windowToQuery } from "@/lib/time";
import { buildScenario, GAME_ID, startSnapshotEnv, type SnapshotTestEnv } from "./helpers";

/**
 * A page's text is captured for storing while its call runs. Whatever the call opens (a kept-alive socket, a timer)
 * carries the call's async context for as long as it lives, so the context must not keep the text after the call.
 */

const WINDOW = parseWindow("2026-05-01", "2026-06-01");
let env: SnapshotTestEnv;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: 5,
      renewalsPerRecipient: 2,
      start: "2026-05-01T00:00:00Z",
      end: "2026-06-01T00:00:00Z",
    }),
  );
});
afterAll(async () => env?.close());

describe("capturing a page's text", () => {
  it("hands the text back with the page and keeps none of it in the call's context afterwards", async () => {
    let insideCall: (<R>(fn: () => R) => R) | null = null;
    const { source } = await createReportSource(env.db, GAME_ID, {
      fetch: (url, init) => {
        // What a socket opened for this request would keep: the async context of the call.
        insideCall = AsyncLocalStorage.snapshot();
        return fetch(url, init);
      },
    });
    const { report, raw } = await source.report({ ...windowToQuery(WINDOW), limit: 100, offset: 0 });
    expect(report.recipients).toHaveLength(5);
    expect(JSON.parse(raw).recipients).toHaveLength(5);
    if (!insideCall) throw new Error("the request never reached fetch");
    expect((insideCall as <R>(fn: () => R) => R)(() => bodyHeldInContext())).toBeNull();
  });
});
