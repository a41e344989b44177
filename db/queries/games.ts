import "server-only";
import { type Insertable, sql, type Updateable } from "kysely";
import type { Db, DbOrTrx } from "@/db";
import type { GameEnvironment, GameTable } from "@/db/types";
import { firstValue } from "./scalar";

/** What may be shown about a game: never the sealed secrets, only their masks. */
export type GameSummary = {
  id: string;
  name: string;
  environment: GameEnvironment;
  baseUrl: string;
  secretMask: string;
  webhookSecretMask: string | null;
  webhookPreviousSecretMask: string | null;
  /** When the previous signing secret stops being accepted (the rotation grace). */
  webhookPreviousExpiresAt: Date | null;
  updatedAt: Date;
};

export async function listGames(db: Db): Promise<GameSummary[]> {
  const rows = await db
    .selectFrom("game")
    .select([
      "id",
      "name",
      "environment",
      "base_url",
      "secret_mask",
      "webhook_secret_mask",
      "webhook_previous_secret_mask",
      "webhook_previous_expires_at",
      "updated_at",
    ])
    .orderBy("name")
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    environment: r.environment,
    baseUrl: r.base_url,
    secretMask: r.secret_mask,
    webhookSecretMask: r.webhook_secret_mask,
    webhookPreviousSecretMask:
      r.webhook_previous_expires_at && r.webhook_previous_expires_at > new Date()
        ? r.webhook_previous_secret_mask
        : null,
    webhookPreviousExpiresAt:
      r.webhook_previous_expires_at && r.webhook_previous_expires_at > new Date()
        ? r.webhook_previous_expires_at
        : null,
    updatedAt: r.updated_at,
  }));
}

export async function findGame(db: Db, gameId: string): Promise<GameSummary | null> {
  return (await listGames(db)).find((g) => g.id === gameId) ?? null;
}

export async function getSelectedGameId(db: Db, sessionId: string): Promise<string | null> {
  return firstValue(db.selectFrom("session_game").select("game_id").where("session_id", "=", sessionId), "game_id");
}

export async function setSelectedGameId(db: Db, sessionId: string, gameId: string): Promise<void> {
  await db
    .insertInto("session_game")
    .values({ session_id: sessionId, game_id: gameId, updated_at: new Date() })
    .onConflict((oc) => oc.column("session_id").doUpdateSet({ game_id: gameId, updated_at: new Date() }))
    .execute();
}

export async function gameExists(db: DbOrTrx, gameId: string): Promise<boolean> {
  const row = await db.selectFrom("game").select("id").where("id", "=", gameId).executeTakeFirst();
  return row !== undefined;
}

export async function insertGame(db: DbOrTrx, values: Insertable<GameTable>): Promise<void> {
  await db.insertInto("game").values(values).execute();
}

/** Sets columns of a game; false when there is no such game. */
export async function updateGame(db: DbOrTrx, gameId: string, values: Updateable<GameTable>): Promise<boolean> {
  const result = await db.updateTable("game").set(values).where("id", "=", gameId).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The webhook signing secrets (sealed), the row locked until the transaction ends. */
export async function lockGameWebhookSecret(trx: DbOrTrx, gameId: string) {
  return trx
    .selectFrom("game")
    .select([
      "webhook_secret_sealed",
      "webhook_secret_mask",
      "webhook_previous_secret_sealed",
      "webhook_previous_expires_at",
    ])
    .where("id", "=", gameId)
    .forUpdate()
    .executeTakeFirst();
}

/** A game's sealed secrets, as stored: opened by lib/games only. */
export async function readSealedGameSecrets(db: DbOrTrx, gameId: string) {
  return db
    .selectFrom("game")
    .select([
      "id",
      "environment",
      "base_url",
      "secret_sealed",
      "webhook_secret_sealed",
      "webhook_previous_secret_sealed",
      "webhook_previous_expires_at",
    ])
    .where("id", "=", gameId)
    .executeTakeFirst();
}

export async function readGameSettings(
  db: DbOrTrx,
  gameId: string,
  options: { lock?: boolean } = {},
): Promise<Record<string, unknown>> {
  const query = db.selectFrom("game").select("settings").where("id", "=", gameId);
  const row = await (options.lock ? query.forUpdate() : query).executeTakeFirstOrThrow();
  return row.settings;
}

/** Sets keys of a game's settings, keeping the others. */
export async function mergeGameSettings(db: DbOrTrx, gameId: string, patch: Record<string, unknown>): Promise<void> {
  await db
    .updateTable("game")
    .set({ settings: sql`settings || ${JSON.stringify(patch)}::jsonb`, updated_at: new Date() })
    .where("id", "=", gameId)
    .execute();
}

/**
 * What tells a deployment's database from a demo's before it is migrated: the ids of its games and the emails of its
 * users, each empty where the table is not there yet.
 */
export async function listGameIdsAndUserEmails(db: Db): Promise<{ games: string[]; users: string[] }> {
  const { rows } = await sql<{ game: string | null; users: string | null }>`
    select to_regclass('game')::text as game, to_regclass('auth_user')::text as users`.execute(db);
  const tables = rows[0];
  const games = tables?.game ? await db.selectFrom("game").select("id").execute() : [];
  const users = tables?.users ? await db.selectFrom("auth_user").select("email").execute() : [];
  return { games: games.map((g) => g.id), users: users.map((u) => u.email) };
}
