import type { z } from "zod";
import { createDb, type Db } from "@/db";
import { migrateToLatest } from "@/db/migrate";
import { verifyKeys } from "@/lib/keys/check";
import type { CommandSpec } from "./cli";
import { exportRuntimeEnv, prepareRuntime, type Runtime } from "./runtime";

/** One command of `npm run desk`: its flags (parsed by its zod schema) and what it does; the result goes to stdout. */
export type Command = { spec: CommandSpec<z.ZodType>; run(flags: never): Promise<unknown> };

/**
 * Runs a command against the database. `keys`: the command seals or opens secrets, so it first refuses a key that
 * is not the one they were sealed with (README, "Keys").
 */
export async function withDb<T>(
  work: (db: Db, runtime: Runtime) => Promise<T>,
  options: { migrate?: boolean; keys?: boolean } = {},
): Promise<T> {
  const runtime = await prepareRuntime();
  exportRuntimeEnv(runtime);
  const db = createDb(runtime.databaseUrl, { max: 4 });
  try {
    if (options.migrate !== false) await migrateToLatest(db);
    if (options.keys) await verifyKeys(db);
    return await work(db, runtime);
  } finally {
    await db.destroy();
    await runtime.stop();
  }
}
