import "server-only";
import { type Kysely, type MigrationResultSet, Migrator, sql } from "kysely";
import { MIGRATIONS } from "./migrations";
import { listAppliedMigrations } from "./queries/health";

/** The oldest PostgreSQL the app supports and CI runs against: Debian's (README, "Configuration"). */
export const MINIMUM_SERVER_VERSION = { major: 15, num: 150000 };

export function refuseOldServer(versionNum: number, version: string, minimum = MINIMUM_SERVER_VERSION): void {
  if (versionNum < minimum.num)
    throw new Error(`PostgreSQL ${minimum.major} or newer is required; this server is ${version}`);
}

/** Against the migrations a database has applied: this release's not applied yet, and those of a newer release. */
export function migrationState(applied: readonly string[]): { pending: string[]; newer: string[] } {
  const done = new Set(applied);
  const known = new Set(Object.keys(MIGRATIONS));
  return {
    pending: [...known].filter((name) => !done.has(name)),
    newer: applied.filter((name) => !known.has(name)),
  };
}

export async function migrateToLatest(
  // biome-ignore lint/suspicious/noExplicitAny: migrations are typed Kysely<any>, frozen apart from today's schema.
  db: Kysely<any>,
  options: { minimumServerVersion?: typeof MINIMUM_SERVER_VERSION } = {},
): Promise<{ applied: string[] }> {
  const { rows } = await sql<{ num: string; version: string }>`
    select current_setting('server_version_num') as num, current_setting('server_version') as version`.execute(db);
  refuseOldServer(Number(rows[0]?.num), rows[0]?.version ?? "unknown", options.minimumServerVersion);
  // A database migrated by a newer release (a rolling deploy): migrations only add, so this release runs against it
  // as it is, once it has every migration this release knows (the migrator would refuse it as "corrupted").
  const { pending, newer } = migrationState(await listAppliedMigrations(db));
  if (newer.length > 0) {
    if (pending.length > 0)
      throw new Error(
        `the database has migrations of a newer release (${newer.join(", ")}) but not ${pending.join(", ")} of ` +
          "this one: migrate it with the newer release",
      );
    return { applied: [] };
  }
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    migrationTableName: "kysely_migration",
    migrationLockTableName: "kysely_migration_lock",
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  const failed = result.results?.find((r) => r.status === "Error");
  if (result.error || failed) {
    const reason = result.error instanceof Error ? result.error.message : String(result.error ?? "unknown error");
    throw new Error(`migration ${failed?.migrationName ?? ""} failed: ${reason}`.replace("  ", " "));
  }
  return { applied: (result.results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName) };
}
