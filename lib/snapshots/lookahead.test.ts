import { describe, expect, it } from "vitest";
import type { AttributionReport } from "@/lib/service/schemas";
import { createLookahead, type PageAnswer } from "./lookahead";

type Asked = { offset: number; signal?: AbortSignal; answer(): void; received?: () => void };

/** A request function that answers only when told, so that the test decides what is in flight. */
function requests() {
  const asked: Asked[] = [];
  const request = (offset: number, signal?: AbortSignal, received?: () => void) =>
    new Promise<PageAnswer>((resolve, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      asked.push({
        offset,
        signal,
        received,
        answer: () =>
          resolve({ report: { offset } as unknown as AttributionReport, raw: `${offset}`, fetchedAt: new Date() }),
      });
    });
  return { asked, request };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("createLookahead", () => {
  it("asks for the next pages up to its depth, one after the other, never past the total, in order", async () => {
    const { asked, request } = requests();
    const ahead = createLookahead(request, { depth: 2, pageSize: 100, total: 350 });
    ahead.plan(100);
    await settle();
    // The second leaves only once the first is answered: the service never holds two at once.
    expect(asked.map((a) => a.offset)).toEqual([100]);
    asked[0]?.answer();
    await settle();
    expect(asked.map((a) => a.offset)).toEqual([100, 200]);
    expect((await ahead.take(100)).raw).toBe("100");
    ahead.plan(200);
    ahead.plan(200);
    asked[1]?.answer();
    await settle();
    expect(asked.map((a) => a.offset)).toEqual([100, 200, 300]);
    expect((await ahead.take(200)).raw).toBe("200");
    ahead.plan(300);
    asked[2]?.answer();
    await settle();
    // 400 is past the total.
    expect(asked.map((a) => a.offset)).toEqual([100, 200, 300]);
    expect((await ahead.take(300)).raw).toBe("300");
  });

  it("unpaced (together), asks for the next pages up to its depth at once", async () => {
    const { asked, request } = requests();
    const ahead = createLookahead(request, { depth: 2, pageSize: 100, total: 350, together: true });
    ahead.plan(100);
    await settle();
    expect(asked.map((a) => a.offset)).toEqual([100, 200]);
    asked[1]?.answer();
    asked[0]?.answer();
    expect((await ahead.take(100)).raw).toBe("100");
    ahead.plan(200);
    await settle();
    expect(asked.map((a) => a.offset)).toEqual([100, 200, 300]);
    expect((await ahead.take(200)).raw).toBe("200");
  });

  it("asks for the next page once the service has answered the one before, before that answer is parsed", async () => {
    const { asked, request } = requests();
    const ahead = createLookahead(request, { depth: 2, pageSize: 100, total: 1_000 });
    ahead.plan(100);
    await settle();
    asked[0]?.received?.();
    await settle();
    expect(asked.map((a) => a.offset)).toEqual([100, 200]);
  });

  it("cancels what it asked for when a page ends elsewhere than planned, and asks for the right one", async () => {
    const { asked, request } = requests();
    const ahead = createLookahead(request, { depth: 2, pageSize: 100, total: 1_000 });
    ahead.plan(100);
    await settle();
    const taken = ahead.take(150);
    asked[0]?.answer();
    await settle();
    // 200 never left: it waited for 100, which was cancelled.
    expect(asked.map((a) => [a.offset, a.signal?.aborted ?? false])).toEqual([
      [100, true],
      [150, false],
    ]);
    asked[1]?.answer();
    expect((await taken).raw).toBe("150");
  });

  it("aborts everything in flight when cancelled or when the read is stopped", async () => {
    const { asked, request } = requests();
    const stop = new AbortController();
    const ahead = createLookahead(request, { depth: 2, pageSize: 100, total: 1_000, signal: stop.signal });
    ahead.plan(100);
    await settle();
    stop.abort(new Error("stopped"));
    expect(asked.every((a) => a.signal?.aborted)).toBe(true);
    await expect(ahead.take(100)).rejects.toThrow("stopped");
    await settle();
    expect(asked.map((a) => a.offset)).toEqual([100]);

    const again = requests();
    const other = createLookahead(again.request, { depth: 1, pageSize: 100, total: 1_000 });
    other.plan(100);
    await settle();
    other.cancel();
    expect(again.asked.map((a) => a.signal?.aborted)).toEqual([true]);
  });
});
