import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** Far more than a pipe holds (64 KiB on Linux): the rest is still on its way when the command returns. */
const LENGTH = 1_000_000;
/** What the command writes on stderr just before its result, so the reader can wait for that moment. */
const WRITING = "writing the result";
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-pipe-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The command that writes a `LENGTH`-character result, as a script in the test's folder. */
async function largeResultScript(): Promise<string> {
  const script = path.join(dir, "large-result.mjs");
  await writeFile(
    script,
    `import { runCommandLine } from ${JSON.stringify(path.join(ROOT, "bin/desk.ts"))};\n` +
      "runCommandLine([], async (_argv, out) => {\n" +
      `  process.stderr.write(${JSON.stringify(`${WRITING}\n`)});\n` +
      "  await new Promise((resolve) => setTimeout(resolve, 200));\n" +
      `  out(JSON.stringify({ lines: "x".repeat(${LENGTH}) }) + "\\n");\n` +
      "  return 0;\n" +
      "});\n",
  );
  return script;
}

/**
 * Runs a command whose result is `LENGTH` characters through a pipe. Once the command is about to write it, the reader
 * waits `readAfterMs` before reading, or with "close" closes its end without reading anything.
 */
async function largeResultThroughPipe(
  reader: { readAfterMs: number } | "close",
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = await largeResultScript();
  const child = spawn(process.execPath, ["--import", "./bin/register.mjs", script], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.pause();
  const chunks: Buffer[] = [];
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => {
    const seen = stderr.includes(WRITING);
    stderr += chunk.toString("utf8");
    if (seen || !stderr.includes(WRITING)) return;
    if (reader === "close") child.stdout.destroy();
    else setTimeout(() => child.stdout.resume(), reader.readAfterMs);
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  return { code, stdout: Buffer.concat(chunks).toString("utf8"), stderr };
}

describe("a command's JSON result through a pipe", () => {
  it("arrives whole before the command exits, however slowly the reader takes it", async () => {
    const { code, stdout } = await largeResultThroughPipe({ readAfterMs: 1_000 });
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as { lines: string };
    expect(parsed.lines).toHaveLength(LENGTH);
  });

  it("ends with the command's exit code when the reader stops early (`| head`), without a stack trace", async () => {
    const { code, stderr } = await largeResultThroughPipe("close");
    expect(code).toBe(0);
    expect(stderr).not.toContain("EPIPE");
    expect(stderr.trim()).toBe(WRITING);
  });

  it("fails the command when the result cannot be written (a full disk under `> summary.json`)", async () => {
    const full = openSync("/dev/full", "w");
    try {
      const child = spawn(process.execPath, ["--import", "./bin/register.mjs", await largeResultScript()], {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: "" },
        stdio: ["ignore", full, "pipe"],
      });
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
      expect(code).toBe(1);
      expect(stderr).toContain("desk: the result could not be written to stdout (ENOSPC");
    } finally {
      closeSync(full);
    }
  });
});
