import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startCluster } from "../../db/embedded";
import { assertLocal } from "./local";

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

/**
 * One throwaway PostgreSQL cluster for the whole run (in the system temp folder, on a free port, durability off),
 * and one fresh database per test file (tests/support/db.ts). Removed when the run ends.
 *
 * With DATABASE_URL set, the run uses that server instead (a local one: CI starts Debian's PostgreSQL for it, see
 * .ci/debian-postgres): the URL names a role that may create databases, and each test file still gets its own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.DATABASE_URL;
  if (given) {
    assertLocal(given);
    // Test files set DATABASE_URL to their own database; none may fall back to the server's admin database.
    delete process.env.DATABASE_URL;
    project.provide("pgAdminUrl", given);
    return async () => {};
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-test-"));
  // As root the cluster runs as the `postgres` user, which must be able to enter this folder.
  await chmod(dir, 0o755);
  const cluster = await startCluster({
    clusterDir: path.join(dir, "postgres"),
    password: randomBytes(12).toString("base64url"),
    durable: false,
  });
  project.provide("pgAdminUrl", cluster.url);
  return async () => {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
