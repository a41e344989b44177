import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { SLACK } from "./tests/support/slack";

const ROOT = import.meta.dirname;
const TEST_DIRS = ["lib", "emulator", "tests", "bin"];
const INCLUDE = TEST_DIRS.map((dir) => `${dir}/**/*.test.ts`);

/**
 * Test files that replace modules or globals (vi.mock, vi.doMock, vi.stubGlobal, fake timers) run each in a process
 * of their own: a replacement must not reach the next file. The others share worker processes, one file after
 * another (tests/support/fresh-file.ts gives each a fresh start): a process of its own per file cost about a third of
 * the suite's CPU, loading the same packages again for every file.
 */
const REPLACES = /\bvi\.(mock|doMock|stubGlobal|useFakeTimers)\(/;
const ISOLATED = TEST_DIRS.flatMap((dir) =>
  readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".test.ts"))
    .map((file) => path.join(dir, file))
    .filter((file) => REPLACES.test(readFileSync(path.join(ROOT, file), "utf8"))),
);

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(ROOT),
      "server-only": path.resolve(ROOT, "tests/support/server-only.ts"),
    },
  },
  test: {
    globalSetup: ["tests/support/global-setup.ts"],
    // Guards against a hang, not limits on speed: on a busy machine (the end-to-end suites run alongside) a test
    // that spawns the CLI or restarts a service takes two to three times as long as alone.
    testTimeout: 60_000 * SLACK,
    hookTimeout: 120_000 * SLACK,
    pool: "forks",
    // Most test time is spent waiting on PostgreSQL, the emulator and child processes: more files than cores run
    // at once.
    maxWorkers: 3,
    // Processed by vite so that tests can stand in for next/headers inside better-auth's Next.js cookie plugin.
    server: { deps: { inline: ["better-auth"] } },
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: INCLUDE,
          isolate: false,
          setupFiles: ["tests/support/fresh-file.ts"],
          exclude: [...configDefaults.exclude, ...ISOLATED],
        },
      },
      ...(ISOLATED.length > 0 ? [{ extends: true as const, test: { name: "isolated", include: ISOLATED } }] : []),
    ],
  },
});
