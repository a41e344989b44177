import { constants as osConstants } from "node:os";
import type { z } from "zod";
import { leaveStopSignalsToCaller } from "@/db/embedded";
import { createDb, type Db } from "@/db";
import { migrateToLatest } from "@/db/migrate";
import { verifyKeys } from "@/lib/keys/check";
import { STOP_SIGNALS } from "@/lib/stop-signal";
import { CliError, type CommandSpec } from "./cli";
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
  leaveStopSignalsToCaller();
  // Stopped by a signal (Ctrl-C, SIGTERM, a closed terminal), the command gives up its share of the embedded cluster
  // as its end would (the cluster stops only if nothing else uses it), once, and ends with the signal's code: it prints
  // no result, and a second signal waits for the stop.
  let runtime: Runtime | undefined;
  let stopping: Promise<void> | undefined;
  let signalled: NodeJS.Signals | undefined;
  const stop = () => {
    stopping ??= runtime ? runtime.stop() : Promise.resolve();
    return stopping;
  };
  const endBySignal = async (): Promise<never> => {
    await stop().catch((error: unknown) => {
      process.stderr.write(`the embedded database's stop failed: ${error instanceof Error ? error.message : error}\n`);
    });
    process.exit(128 + (signalled ? (osConstants.signals[signalled] ?? 1) : 1));
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      process.stderr.write(`${signal} again: still stopping\n`);
      return;
    }
    signalled = signal;
    // While the runtime starts, its start is let finish first, so that a cluster it started is stopped too.
    if (runtime) void endBySignal();
    else process.stderr.write(`${signal}: stopping once the database has started\n`);
  };
  for (const name of STOP_SIGNALS) process.on(name, onSignal);
  try {
    runtime = await prepareRuntime().catch((error: unknown) => {
      throw embeddedFailure(error) ?? error;
    });
  } catch (error) {
    if (signalled) return endBySignal();
    for (const name of STOP_SIGNALS) process.off(name, onSignal);
    throw error;
  }
  if (signalled) return endBySignal();
  exportRuntimeEnv(runtime);
  const where = databaseAddress(runtime.databaseUrl);
  const db = createDb(runtime.databaseUrl, { max: 4 });
  try {
    if (options.migrate !== false) await migrateToLatest(db, { stopped: runtime.embedded });
    if (options.keys) await verifyKeys(db);
    return await work(db, runtime);
  } catch (error) {
    throw databaseFailure(error, where) ?? error;
  } finally {
    await db.destroy();
    if (signalled) await endBySignal();
    await stop();
    for (const name of STOP_SIGNALS) process.off(name, onSignal);
  }
}

/**
 * "db.example.com:5432/payouts" from a connection string, never its user or password; null when it is unreadable or
 * not a postgres:// URL (another scheme's "path" may hold the password).
 */
export function databaseAddress(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") return null;
    const host = parsed.hostname || parsed.searchParams.get("host") || "localhost";
    return `${host}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return null;
  }
}

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * A failure of the embedded default's PostgreSQL while it starts (prepareRuntime connects to nothing else: with
 * DATABASE_URL it only reads settings), said as such; null for any other error.
 */
function embeddedFailure(error: unknown): CliError | null {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string") return null;
  const dataDir = process.env.PAYOUT_DESK_DATA_DIR || ".data";
  const message = error instanceof Error ? error.message.split("\n")[0] : code;
  return new CliError(
    `the embedded database under ${dataDir}/ (used without DATABASE_URL) could not start: ${message} (${code})`,
  );
}

/** A failure to reach or sign in to the database, said with what to check; null for any other error. */
export function databaseFailure(error: unknown, where: string | null): CliError | null {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string") return null;
  const at = where ? ` at ${where}` : "";
  if (UNREACHABLE.has(code))
    return new CliError(`cannot reach the database${at} (${code}): check DATABASE_URL and that the server is up`);
  if (code === "28P01" || code === "28000")
    return new CliError(`the database${at} refused the sign-in: check the user and password in DATABASE_URL`);
  if (code === "3D000") return new CliError(`the database${at} does not exist: create it or fix DATABASE_URL`);
  return null;
}
