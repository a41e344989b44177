import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** Far more than a pipe holds (64 KiB on Linux): the rest is still on its way when the command returns. */
const LENGTH = 1_000_000;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-pipe-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs a command whose result is `LENGTH` characters, its stdout a pipe read only after `readAfterMs`. */
async function largeResultThroughPipe(readAfterMs: number): Promise<{ code: number | null; stdout: string }> {
  const script = path.join(dir, "large-result.mjs");
  await writeFile(
    script,
    `import { runCommandLine } from ${JSON.stringify(path.join(ROOT, "bin/desk.ts"))};\n` +
      "runCommandLine([], async (_argv, out) => {\n" +
      `  out(JSON.stringify({ lines: "x".repeat(${LENGTH}) }) + "\\n");\n` +
      "  return 0;\n" +
      "});\n",
  );
  const child = spawn(process.execPath, ["--import", "./bin/register.mjs", script], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: "" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  child.stdout.pause();
  const chunks: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  setTimeout(() => child.stdout.resume(), readAfterMs);
  const code = await ended;
  return { code, stdout: Buffer.concat(chunks).toString("utf8") };
}

describe("a command's JSON result through a pipe", () => {
  it("arrives whole before the command exits, however slowly the reader takes it", async () => {
    const { code, stdout } = await largeResultThroughPipe(500);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as { lines: string };
    expect(parsed.lines).toHaveLength(LENGTH);
  });
});
