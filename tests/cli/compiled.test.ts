import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/**
 * `npm run desk` runs bin/desk.mjs: the program compiled from bin/desk.ts and kept under node_modules/.cache, one
 * build per state of the sources. It must behave as the sources do, and a second run must reuse the build.
 */
const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const CACHE = path.join(ROOT, "node_modules", ".cache", "payout-desk");
const ENV = { ...process.env, NODE_OPTIONS: "", LOG_LEVEL: "silent" };

async function node(args: string[], cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd, env: ENV });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function builds(): Promise<Map<string, number>> {
  const names = (await readdir(CACHE)).filter((name) => /^desk-[0-9a-f]{16}$/.test(name));
  return new Map(
    await Promise.all(names.map(async (name) => [name, (await stat(path.join(CACHE, name))).mtimeMs] as const)),
  );
}

describe("the compiled command line", () => {
  it("answers as the TypeScript sources do, and a second run reuses its build", async () => {
    const compiled = await node(["bin/desk.mjs", "users", "add", "--help"]);
    const sources = await node(["--import", "./bin/register.mjs", "bin/desk.ts", "users", "add", "--help"]);
    expect(compiled.code).toBe(0);
    expect(compiled.stdout).toContain("--password-file");
    expect(compiled).toEqual(sources);

    const refused = await node(["bin/desk.mjs", "users", "nosuch"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(
      'desk: unknown command "users nosuch"; try one of: users add, users list, users set-role, ' +
        "users remove-access, users set-password",
    );

    const before = await builds();
    expect(before.size).toBeGreaterThan(0);
    await node(["bin/desk.mjs", "--help"]);
    const after = await builds();
    // No build made or rewritten by the second run (an older build may be pruned meanwhile by another run's build).
    expect(after.size).toBeGreaterThan(0);
    for (const [name, at] of after) expect(before.get(name)).toBe(at);
  });

  it("runs from the TypeScript sources where its build cannot be written", async () => {
    // A copy of the project whose node_modules/.cache is a file, so no build can be made under it (as with a
    // read-only node_modules); the sources and the packages are the project's own, linked.
    const root = await mkdtemp(path.join(tmpdir(), "desk-read-only-"));
    try {
      await cp(path.join(ROOT, "bin"), path.join(root, "bin"), { recursive: true });
      for (const name of await readdir(ROOT)) {
        if (!["bin", "node_modules", ".git", ".next", ".data"].includes(name))
          await symlink(path.join(ROOT, name), path.join(root, name));
      }
      await mkdir(path.join(root, "node_modules"));
      for (const name of await readdir(path.join(ROOT, "node_modules"))) {
        if (name !== ".cache")
          await symlink(path.join(ROOT, "node_modules", name), path.join(root, "node_modules", name));
      }
      await writeFile(path.join(root, "node_modules", ".cache"), "not a folder\n");

      const fromSources = await node(["bin/desk.mjs", "users", "add", "--help"], root);
      const compiled = await node(["bin/desk.mjs", "users", "add", "--help"]);
      expect(fromSources.code).toBe(0);
      expect(fromSources.stdout).toContain("--password-file");
      expect(fromSources).toEqual(compiled);
      expect((await stat(path.join(root, "node_modules", ".cache"))).isFile()).toBe(true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
