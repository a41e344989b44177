import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * A production build is reused while its inputs are unchanged: the hash of every source file the app is built
 * from is stored beside the build, and `npm start` rebuilds when the hash differs or the build is missing.
 */
const INPUT_DIRS = ["app", "lib", "db"];
const INPUT_FILES = [
  "next.config.mjs",
  "proxy.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "package-lock.json",
  "package.json",
];
const SKIP = /\.test\.tsx?$|(^|\/)(node_modules|\.next)(\/|$)/;

function walk(dir: string, out: string[]): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (SKIP.test(full)) continue;
    if (statSync(full).isDirectory()) walk(full, out);
    else out.push(full);
  }
}

export function sourceHash(root: string): string {
  const files: string[] = [];
  for (const dir of INPUT_DIRS) walk(path.join(root, dir), files);
  for (const file of INPUT_FILES) if (existsSync(path.join(root, file))) files.push(path.join(root, file));
  const hash = createHash("sha256");
  for (const file of files.sort()) {
    hash.update(path.relative(root, file));
    hash.update("\0");
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
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
 * when it built. The build's output goes to this process's own output.
 */
export async function ensureBuild(root: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  if (buildIsCurrent(root)) return false;
  const hash = sourceHash(root);
  const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [nextBin, "build"], {
      cwd: root,
      env: { ...env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
      stdio: "inherit",
    });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`next build exited with ${code}`))));
  });
  writeFileSync(stampPath(root), hash);
  return true;
}
