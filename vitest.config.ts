import path from "node:path";
import { defineConfig } from "vitest/config";
import { SLACK } from "./tests/support/slack";

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      "server-only": path.resolve(import.meta.dirname, "tests/support/server-only.ts"),
    },
  },
  test: {
    include: ["lib/**/*.test.ts", "emulator/**/*.test.ts", "tests/**/*.test.ts", "bin/**/*.test.ts"],
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
  },
});
