import "server-only";
import type { Db } from "@/db";
import { readGameCredentials } from "@/lib/games/games";
import { log } from "@/lib/log";
import { createServiceClient, type RequestLogEntry, type ServiceClient, type ServiceClientConfig } from "./client";
import { type Pacer, parsePacingMode } from "./pacing";
import { createSharedPacer } from "./shared-pacer";

/**
 * One pacer per game, shared by every client of that game (snapshot jobs, support tools) in every process of the
 * deployment: its buckets live in PostgreSQL, so web servers, workers and CLI runs together stay inside the service's
 * limits. A game's `settings.pacing` may say "off" or "scaled:K" (for the emulator run with scaled limits); the default
 * is the documented limits.
 */
const holder = globalThis as unknown as { __payoutDeskPacers?: Map<string, { db: Db; pacer: Pacer }> };
holder.__payoutDeskPacers ??= new Map();
const pacers = holder.__payoutDeskPacers;

function pacerFor(db: Db, gameId: string, mode: string): Pacer {
  const key = `${gameId}|${mode}`;
  const known = pacers.get(key);
  if (known && known.db === db) return known.pacer;
  const pacer = createSharedPacer(db, parsePacingMode(mode));
  pacers.set(key, { db, pacer });
  return pacer;
}

function logRequest(gameId: string) {
  return (entry: RequestLogEntry) =>
    log.debug("service request", {
      game: gameId,
      method: entry.method,
      path: entry.path,
      status: entry.status,
      ms: entry.durationMs,
      errorCode: entry.errorCode,
      attempt: entry.attempt,
    });
}

/** A client for one game, with its secret opened on the server only. */
export async function serviceClientForGame(
  db: Db,
  gameId: string,
  overrides: Partial<ServiceClientConfig> = {},
): Promise<ServiceClient> {
  const credentials = await readGameCredentials(db, gameId);
  const settings = await db.selectFrom("game").select("settings").where("id", "=", gameId).executeTakeFirstOrThrow();
  const pacing = typeof settings.settings.pacing === "string" ? settings.settings.pacing : "on";
  // A caller's log sees every attempt too; it never replaces the request log.
  const { log: alsoLog, ...rest } = overrides;
  const requestLog = logRequest(gameId);
  return createServiceClient({
    baseUrl: credentials.baseUrl,
    environment: credentials.environment,
    gameSecret: credentials.secret,
    gameId,
    pacing: pacerFor(db, gameId, pacing),
    log: alsoLog
      ? (entry) => {
          requestLog(entry);
          alsoLog(entry);
        }
      : requestLog,
    ...rest,
  });
}
