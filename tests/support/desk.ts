import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "vitest";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");

export type DeskRun = { code: number; stdout: string; stderr: string };

/**
 * Runs `desk` as `npm run desk` does, in a child process, against the database at `databaseUrl`; `env` adds to or
 * replaces the test process's environment (a key, a log level).
 */
export async function runDesk(
  databaseUrl: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<DeskRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["bin/desk.mjs", ...args], {
      cwd: ROOT,
      // A variable given as undefined is left out, whatever this process has (a password in the shell's environment).
      env: Object.fromEntries(
        Object.entries({ ...process.env, DATABASE_URL: databaseUrl, NODE_OPTIONS: "", ...env }).filter(
          ([, value]) => value !== undefined,
        ),
      ) as NodeJS.ProcessEnv,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as DeskRun;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The one line a refused command writes to stderr (npm's own warnings aside); the exit code is not 0. */
export function refusalLine(result: DeskRun): string {
  expect(result.code).not.toBe(0);
  const lines = result.stderr
    .trim()
    .split("\n")
    .filter((l) => !l.includes("nodedir"));
  expect(lines).toHaveLength(1);
  return lines[0] ?? "";
}
