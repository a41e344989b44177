import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");

/** Runs `npm run desk -- …` as a child process against a test database; never throws, gives the exit code. */
export async function runDesk(
  databaseUrl: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "./bin/register.mjs", "bin/desk.ts", ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PAYOUT_DESK_KEY: process.env.PAYOUT_DESK_KEY,
        NODE_OPTIONS: "",
      },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
