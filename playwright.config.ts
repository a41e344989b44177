import { existsSync } from "node:fs";
import { defineConfig } from "@playwright/test";
import { SLACK } from "./e2e/fixtures/slack";

/**
 * End-to-end tests run a production build of Payout Desk against a throwaway PostgreSQL and the service emulator,
 * all started by e2e/global-setup.ts on free ports. Chromium is the system's, never a download (see CHROMIUM).
 *
 * Two projects split the specs: "checks" walks every page and checks what no page may show (errors, accessibility
 * faults, secrets, missing headers), what each role is shown, and runs the fleet (servers and workers of its own);
 * "flows" takes people through their work. `npm test` runs each in a Playwright process of its own, side by side, so
 * each has its own database, emulator and server and neither sees the other's changes; the specs are shared out so
 * that both take about as long (a run of 16 minutes: checks 11 and flows 13 minutes with the roles spec, a minute, in
 * flows), and neither runs on alone at the end while a core waits. `npm run test:e2e` alone runs both in one process,
 * one after the other.
 */
/**
 * The browser: CHROMIUM_PATH when set; else Debian's headless shell of Chromium (package chromium-headless-shell, the
 * same engine without the desktop browser's windowing), which `.ci/run` installs; else Debian's Chromium. The shell
 * draws the same pages for about two thirds of the CPU (the support spec run alone: 70 s of the browser's CPU against
 * 105 – 114 s in /usr/bin/chromium). It has no window: a run with --headed or --debug sets
 * CHROMIUM_PATH=/usr/bin/chromium.
 */
const CHROMIUM =
  process.env.CHROMIUM_PATH ??
  ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"].find((file) => existsSync(file)) ??
  "/usr/bin/chromium";

const CHECK_SPECS = [
  "crawl.spec.ts",
  "secrets.spec.ts",
  "headers.spec.ts",
  "frame.spec.ts",
  "fleet.spec.ts",
  "roles.spec.ts",
];

export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/global-setup.ts",
  // Guards against a hang, multiplied for a busy machine (e2e/fixtures/slack.ts).
  timeout: 60_000 * SLACK,
  expect: { timeout: 10_000 * SLACK },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL: process.env.E2E_BASE_URL,
    // A failed test keeps a screenshot at the failure (with the accessibility snapshot Playwright writes beside the
    // error). Its trace (every action with its locator, timing and source line, the network and the console) is
    // recorded with PAYOUT_DESK_E2E_TRACE=1 and kept for failed tests: recorded for every test and thrown away when it
    // passes, it cost a tenth or more of a spec's CPU (the support spec run alone: 145 – 156 s of CPU against 128 s).
    // The trace's film strip is left out even then: recording it made the browser redraw and encode frames all the
    // time, about 30% of the suites' CPU for a payout review spec run alone. So are its copies of the DOM before and
    // after every action: walking and serialising a page of 3,000 elements at each action was a tenth of the
    // browser's CPU.
    trace: process.env.PAYOUT_DESK_E2E_TRACE
      ? { mode: "retain-on-failure", screenshots: false, snapshots: false }
      : "off",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    { name: "checks", testMatch: CHECK_SPECS, outputDir: "test-results/checks", use: { browserName: "chromium" } },
    { name: "flows", testIgnore: CHECK_SPECS, outputDir: "test-results/flows", use: { browserName: "chromium" } },
  ],
});
