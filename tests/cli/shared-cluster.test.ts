import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareRuntime, type Runtime } from "../../bin/runtime";
import { findRunningCluster, stopClusterOf } from "../../db/embedded";

/** The embedded default's cluster, shared by the app, a worker and commands run on one data directory. */

const SETTINGS = [
  "DATABASE_URL",
  "PAYOUT_DESK_KEY",
  "PAYOUT_DESK_KEY_PREVIOUS",
  "PAYOUT_DESK_DATA_DIR",
  "PAYOUT_DESK_URL",
];
const saved = new Map(SETTINGS.map((name) => [name, process.env[name]]));
let dataDir: string;
const clusterDir = () => path.join(dataDir, "postgres");

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-shared-"));
  for (const name of SETTINGS) delete process.env[name];
  process.env.PAYOUT_DESK_DATA_DIR = dataDir;
});
afterAll(async () => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  if (dataDir) {
    await stopClusterOf(clusterDir());
    await rm(dataDir, { recursive: true, force: true });
  }
});

async function answers(runtime: Runtime): Promise<number> {
  const client = new pg.Client({ connectionString: runtime.databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ one: number }>("select 1 as one")).rows[0]?.one ?? 0;
  } finally {
    await client.end();
  }
}

describe("the embedded cluster shared by several processes", () => {
  it("stays up while one still uses it, whichever started it, and stops with the last", async () => {
    // The one that starts it ends first (a command ended while the app serves).
    const starter = await prepareRuntime();
    const joiner = await prepareRuntime();
    expect(joiner.databaseUrl).toBe(starter.databaseUrl);
    await starter.stop();
    expect(await findRunningCluster(clusterDir())).not.toBeNull();
    expect(await answers(joiner)).toBe(1);
    await joiner.stop();
    expect(await findRunningCluster(clusterDir())).toBeNull();

    // The one that found it running ends first (a command ended before the app it ran beside).
    const app = await prepareRuntime();
    const command = await prepareRuntime();
    await command.stop();
    expect(await answers(app)).toBe(1);
    await app.stop();
    expect(await findRunningCluster(clusterDir())).toBeNull();
  });

  it("starts afresh for a process that begins while the last one stops it", async () => {
    for (let round = 0; round < 3; round++) {
      const last = await prepareRuntime();
      const [, next] = await Promise.all([last.stop(), prepareRuntime()]);
      expect(await answers(next)).toBe(1);
      await next.stop();
      expect(await findRunningCluster(clusterDir())).toBeNull();
    }
  });
});
