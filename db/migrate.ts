import "server-only";
import { type Kysely, type MigrationResultSet, Migrator, sql } from "kysely";
import { type DeskMigration, MIGRATIONS } from "./migrations";
import { listAppliedMigrations } from "./queries/health";
import { isLockNotAvailable } from "./queries/locks";

/** The oldest PostgreSQL the app supports and CI runs against: Debian's (README, "Configuration"). */
export const MINIMUM_SERVER_VERSION = { major: 15, num: 150000 };

export function refuseOldServer(versionNum: number, version: string, minimum = MINIMUM_SERVER_VERSION): void {
  if (versionNum < minimum.num)
    throw new Error(`PostgreSQL ${minimum.major} or newer is required; this server is ${version}`);
}

/** Against the migrations a database has applied: this release's not applied yet, and those of a newer release. */
export function migrationState(
  applied: readonly string[],
  migrations: Record<string, unknown> = MIGRATIONS,
): { pending: string[]; newer: string[] } {
  const done = new Set(applied);
  const known = new Set(Object.keys(migrations));
  return {
    pending: [...known].filter((name) => !done.has(name)),
    newer: applied.filter((name) => !known.has(name)),
  };
}

/** One run of the migrations at a time, across every process migrating this database. */
const MIGRATING_LOCK = 7_120_412;

/**
 * How long a migration waits for a table another session holds (a snapshot pull holds its lines until it publishes,
 * which can take hours) before the run gives up, changing nothing: never a migration waiting without end while the
 * tables it has already locked stop the whole desk.
 */
export const MIGRATION_LOCK_TIMEOUT_MS = 10_000;

export async function migrateToLatest(
  // biome-ignore lint/suspicious/noExplicitAny: migrations are typed Kysely<any>, frozen apart from today's schema.
  db: Kysely<any>,
  options: {
    minimumServerVersion?: typeof MINIMUM_SERVER_VERSION;
    lockTimeoutMs?: number;
    migrations?: Record<string, DeskMigration>;
    /** Every instance of the earlier release is stopped (`desk migrate --earlier-release-stopped`), as some need. */
    stopped?: boolean;
  } = {},
): Promise<{ applied: string[] }> {
  const { rows } = await sql<{ num: string; version: string }>`
    select current_setting('server_version_num') as num, current_setting('server_version') as version`.execute(db);
  refuseOldServer(Number(rows[0]?.num), rows[0]?.version ?? "unknown", options.minimumServerVersion);
  // A database migrated by a newer release (a rolling deploy): migrations only add, so this release runs against it
  // as it is, once it has every migration this release knows (the migrator would refuse it as "corrupted").
  const migrations = options.migrations ?? MIGRATIONS;
  const applied = await listAppliedMigrations(db);
  const { pending, newer } = migrationState(applied, migrations);
  if (newer.length > 0) {
    if (pending.length > 0)
      throw new Error(
        `the database has migrations of a newer release (${newer.join(", ")}) but not ${pending.join(", ")} of ` +
          "this one: migrate it with the newer release",
      );
    return { applied: [] };
  }
  // An existing installation (earlier migrations applied) reaching one that the earlier release cannot run beside:
  // never applied by a start or a command in passing, while earlier instances may still serve.
  const exclusive = pending.filter((name) => migrations[name]?.exclusive);
  if (exclusive.length > 0 && !options.stopped && applied.length > 0)
    throw new Error(
      `migration ${exclusive.join(", ")} needs every instance of the earlier release stopped first (README, ` +
        '"Deploying"): stop them, then run `npm run desk -- migrate --earlier-release-stopped`',
    );
  const lockTimeoutMs = options.lockTimeoutMs ?? MIGRATION_LOCK_TIMEOUT_MS;
  // One connection: the run's turn (waited for without a limit, as long as another run takes), then the limit on
  // waiting for tables, which applies to the migrations alone.
  const result: MigrationResultSet = await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATING_LOCK})`.execute(connection);
    try {
      await sql`select set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, false)`.execute(connection);
      const migrator = new Migrator({
        db: connection,
        provider: { getMigrations: async () => migrations },
        migrationTableName: "kysely_migration",
        migrationLockTableName: "kysely_migration_lock",
      });
      return await migrator.migrateToLatest();
    } finally {
      await sql`reset lock_timeout`.execute(connection);
      await sql`select pg_advisory_unlock(${MIGRATING_LOCK})`.execute(connection);
    }
  });
  const failed = result.results?.find((r) => r.status === "Error");
  if (result.error || failed) {
    const reason = result.error instanceof Error ? result.error.message : String(result.error ?? "unknown error");
    const waited = isLockNotAvailable(result.error)
      ? ` (nothing was changed: a table it changes was in use for over ${lockTimeoutMs / 1000} s, most likely by a ` +
        "snapshot pull, which holds its lines until it publishes; stop the workers or let the pull finish, then " +
        "migrate again)"
      : "";
    throw new Error(`migration ${failed?.migrationName ?? ""} failed: ${reason}${waited}`.replace("  ", " "));
  }
  return { applied: (result.results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName) };
}
