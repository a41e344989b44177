import "server-only";
import { type Kysely, type MigrationResultSet, Migrator } from "kysely";
import { MIGRATIONS } from "./migrations";

export async function migrateToLatest(db: Kysely<any>): Promise<{ applied: string[] }> {
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
