import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sourceHash as hashOf } from "./source-hash.mjs";
import { stopChild } from "./child-process";

/**
 * A production build is reused while its inputs are unchanged: the hash of every source file the app is built
 * from is stored beside the build, and `npm start` rebuilds when the hash differs or the build is missing.
 */
export const INPUT_DIRS = ["app", "core", "lib", "db"];
export const INPUT_FILES = [
  "next.config.mjs",
  "proxy.ts",
  "instrumentation.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "package-lock.json",
  "package.json",
];
const SKIP = /\.test\.tsx?$|(^|\/)(node_modules|\.next)(\/|$)/;

export function sourceHash(root: string): string {
  return hashOf(root, { dirs: INPUT_DIRS, files: INPUT_FILES, skip: SKIP });
}

const STAMP = path.join(".next", "payout-desk-source-hash");

export function buildIsCurrent(root: string): boolean {
  const stamp = path.join(root, STAMP);
  if (!existsSync(path.join(root, ".next", "BUILD_ID")) || !existsSync(stamp)) return false;
  return readFileSync(stamp, "utf8").trim() === sourceHash(root);
}

export function stampPath(root: string): string {
  return path.join(root, STAMP);
}

/**
 * Builds the app for production unless the build is current, then stamps it with the sources' hash. Resolves true
 * when it built. The build's output goes to this process's own output. `own` is handed a stop for the build while it
 * runs (`npm start` stops it with everything else it started).
 */
export async function ensureBuild(
  root: string,
  env: NodeJS.ProcessEnv,
  own: (stop: () => Promise<void>) => void = () => {},
): Promise<boolean> {
  if (buildIsCurrent(root)) return false;
  const hash = sourceHash(root);
  const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [nextBin, "build"], {
      cwd: root,
      env: { ...env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
      stdio: "inherit",
    });
    own(() => stopChild(child));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`next build exited with ${code}`))));
  });
  writeFileSync(stampPath(root), hash);
  return true;
}
