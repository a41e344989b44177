import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { writeChunksToFile } from "@/lib/exports/file";

/** Every write of the file fails as on a full disk; opening and closing it work. */
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const full = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  const failing = {
    ...fs,
    // Answered a moment later, as the disk would: the write itself is taken.
    write: (...args: unknown[]) => setTimeout(() => (args.at(-1) as (error: Error) => void)(full()), 5),
    writev: (...args: unknown[]) => setTimeout(() => (args.at(-1) as (error: Error) => void)(full()), 5),
  };
  const createWriteStream = (file: string, options: object) => fs.createWriteStream(file, { ...options, fs: failing });
  return { ...fs, default: { ...fs, createWriteStream }, createWriteStream };
});

const folder = await mkdtemp(path.join(tmpdir(), "payout-desk-write-failure-"));
afterAll(() => rm(folder, { recursive: true, force: true }));

describe("an export written to a file on a full disk", () => {
  it("fails with the disk's error, leaving no file, while the next rows are still being read", async () => {
    let rows = 0;
    let told: unknown = null;
    async function* chunks(): AsyncGenerator<Buffer, void, undefined> {
      try {
        // A first page (the file waits for its buffer to drain), then the database taking its time over the next.
        yield Buffer.alloc(64 * 1024, "recipient,amount\r\n");
        for (let row = 1; row <= 3; row++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          rows = row;
          // As an export's pages are: larger than the file's buffer, so each write waits for it to drain.
          yield Buffer.alloc(64 * 1024, `10000${row},12.50\r\n`);
        }
      } catch (error) {
        // What an audited export records as its outcome: the failure itself, not a reader that stopped.
        told = error;
        throw error;
      }
    }
    const out = path.join(folder, "lines.csv");
    const written = writeChunksToFile(out, async () => ({ chunks: chunks(), rows: () => rows }));
    await expect(written).rejects.toThrow("ENOSPC");
    expect(await readdir(folder)).toEqual([]);
    expect(String(told)).toContain("ENOSPC");
  });

  it("fails when only the last rows' write fails, after every row was read", async () => {
    let told: unknown = null;
    async function* chunks(): AsyncGenerator<Buffer, void, undefined> {
      try {
        // One small page, taken into the file's buffer at once: the disk refuses it only once every row was read.
        yield Buffer.from("recipient,amount\r\n100001,12.50\r\n");
      } catch (error) {
        told = error;
        throw error;
      }
    }
    const out = path.join(folder, "small.csv");
    const written = writeChunksToFile(out, async () => ({ chunks: chunks(), rows: () => 1 }));
    await expect(written).rejects.toThrow("ENOSPC");
    expect(await readdir(folder)).toEqual([]);
    expect(String(told)).toContain("ENOSPC");
  });
});
