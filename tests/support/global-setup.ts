import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { createDb } from "../../db";
import { startCluster } from "../../db/embedded";
import { migrateToLatest } from "../../db/migrate";
import { assertLocal } from "./local";

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
    /** A database migrated once for the run, that each test file's migrated database is copied from. */
    pgTemplate: string;
  }
}

type Databases = { adminUrl: string; template: string; stop(): Promise<void> };

/** The run's databases, made by the first project's setup and shared by both projects (vitest.config.ts). */
const run = globalThis as unknown as { __payoutDeskTestDatabases?: { ready: Promise<Databases>; projects: number } };

/**
 * One throwaway PostgreSQL cluster for the whole run (in the system temp folder, on a free port, durability off),
 * and one fresh database per test file (tests/support/db.ts). Removed when the run ends.
 *
 * With DATABASE_URL set, the run uses that server instead (a local one: CI starts Debian's PostgreSQL for it, see
 * .ci/debian-postgres): the URL names a role that may create databases, and each test file still gets its own.
 *
 * The migrations run once, into a template database: a test file's migrated database is a copy of it, which costs
 * the machine a fifth of running the migrations again (0.09 s of CPU against 0.5 s a database).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  run.__payoutDeskTestDatabases ??= { ready: startDatabases(), projects: 0 };
  const shared = run.__payoutDeskTestDatabases;
  shared.projects++;
  const { adminUrl, template, stop } = await shared.ready;
  project.provide("pgAdminUrl", adminUrl);
  project.provide("pgTemplate", template);
  return async () => {
    shared.projects--;
    if (shared.projects > 0) return;
    run.__payoutDeskTestDatabases = undefined;
    await stop();
  };
}

async function startDatabases(): Promise<Databases> {
  const given = process.env.DATABASE_URL;
  if (given) {
    assertLocal(given);
    // Test files set DATABASE_URL to their own database; none may fall back to the server's admin database.
    delete process.env.DATABASE_URL;
    const template = await makeTemplate(given);
    return { adminUrl: given, template: template.name, stop: template.drop };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-test-"));
  // As root the cluster runs as the `postgres` user, which must be able to enter this folder.
  await chmod(dir, 0o755);
  const cluster = await startCluster({
    clusterDir: path.join(dir, "postgres"),
    password: randomBytes(12).toString("base64url"),
    durable: false,
  });
  const template = await makeTemplate(cluster.url);
  return {
    adminUrl: cluster.url,
    template: template.name,
    async stop() {
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Makes and migrates the run's template database. */
async function makeTemplate(adminUrl: string): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `test_template_${randomBytes(6).toString("hex")}`;
  await adminQuery(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = createDb(url.toString(), { max: 1 });
  try {
    await migrateToLatest(db);
  } finally {
    // A database is copied only while nobody is connected to it.
    await db.destroy();
  }
  return { name, drop: () => adminQuery(adminUrl, `drop database if exists ${name} with (force)`) };
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}
