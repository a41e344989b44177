import { describe, expect, it, vi } from "vitest";
import { csvDownloadResponse } from "@/lib/exports/http";

/** A download whose client stays connected and stops reading is cut, and its reading stopped; a slow one is not. */

function endless(): { chunks: AsyncGenerator<Buffer, void, undefined>; stopped: () => boolean } {
  let stopped = false;
  async function* rows() {
    try {
      for (;;) yield Buffer.from("1,2.50\r\n");
    } finally {
      stopped = true;
    }
  }
  return { chunks: rows(), stopped: () => stopped };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a download's client", () => {
  it("that stops reading is cut once the wait passes, and the reading stops", async () => {
    const file = endless();
    const response = await csvDownloadResponse(
      { exportId: "e1", filename: "x.csv", chunks: file.chunks },
      undefined,
      100,
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    await vi.waitFor(() => expect(file.stopped()).toBe(true), { timeout: 10_000 });
    await expect(reader.read()).rejects.toThrow(/stopped reading/);
  });

  it("that reads slowly, within the wait each time, is not cut", async () => {
    const file = endless();
    const response = await csvDownloadResponse(
      { exportId: "e2", filename: "x.csv", chunks: file.chunks },
      undefined,
      5000,
    );
    // Reads far apart against the wait, however busy the machine: a pause of 50 ms, a wait of 5 s.
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    for (let i = 0; i < 4; i++) {
      expect((await reader.read()).done).toBe(false);
      await pause(50);
    }
    expect(file.stopped()).toBe(false);
    await reader.cancel();
    expect(file.stopped()).toBe(true);
  });
});
