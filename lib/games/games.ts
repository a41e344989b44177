import "server-only";
import { cache } from "react";
import type { Db, Trx } from "@/db";
import { lockForTransaction } from "@/db/queries/locks";
import {
  findGame,
  type GameSummary,
  getSelectedGameId,
  insertGame,
  listGames,
  lockGameWebhookSecret,
  readSealedGameSecrets,
  setSelectedGameId,
  updateGame,
} from "@/db/queries/games";
import type { ActingAs } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import type { CurrentUser } from "@/lib/auth/session";
import { maskSecret, openSecret, sealSecret } from "@/lib/crypto";
import { AppError } from "@/lib/errors";
import { sealingKey } from "@/lib/keys/check";
import { gameSecretContext as secretContext, webhookSecretContext as webhookContext } from "@/lib/keys/sealed-columns";
import { forgetSigningSecrets } from "@/lib/webhooks/signing-secrets";
import { type GameInput, gameInputSchema } from "./schemas";

/** The service keeps a rotated signing secret valid for 7 days; so do we, then it stops verifying deliveries. */
export const WEBHOOK_ROTATION_GRACE_MS = 7 * 24 * 60 * 60 * 1000;
const graceEnd = () => new Date(Date.now() + WEBHOOK_ROTATION_GRACE_MS);

/** Seals and writes in one transaction, so that a key rotation never misses a value sealed with the old key. */
async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/**
 * Adds a game, or replaces its settings and secrets when it exists (`replace`). Webhook signing secrets given replace
 * the stored ones; none given keeps them as they are (the form never shows a stored secret, so leaving the fields
 * empty must not delete them: deliveries would be refused from then on). Secrets are sealed before storage and never
 * audited: the audit line says how many webhook secrets were given, and for a game replaced what it was before.
 */
export async function saveGame(
  db: Db,
  input: GameInput,
  options: {
    replace: boolean;
    as: ActingAs;
    /** A game that exists changes environment only when this is said (its calls and payment files change with it). */
    environmentChange?: boolean;
  },
): Promise<GameSummary> {
  const game = gameInputSchema.parse(input);
  const [current, previous] = game.webhookSecrets;
  const saved = await inTransaction(db, async (trx) => {
    const key = await sealingKey(trx);
    // One save of a game id at a time: a game added twice at once is added by the first, the second told it exists.
    await lockForTransaction(trx as Trx, `game-save|${game.id}`);
    const exists = (await lockGameWebhookSecret(trx, game.id)) !== undefined;
    if (exists && !options.replace) throw new AppError("CONFLICT", `Game ${game.id} already exists.`, { field: "id" });
    const before = exists ? await findGame(trx, game.id) : null;
    if (before && before.environment !== game.environment && !options.environmentChange)
      throw new AppError(
        "CONFLICT",
        `Game ${game.id} is ${before.environment}: saved as ${game.environment}, its calls would go to the ` +
          `${game.environment === "sandbox" ? "sandbox" : "live service"} and its payment files name another ` +
          `account. Choose ${before.environment}, or confirm the change of environment (the form's box, or ` +
          "--change-environment).",
        { field: "environment" },
      );
    // Whether the service secret changed, never what it is: after "another game's secret was saved for this one", when.
    const stored = exists ? await readSealedGameSecrets(trx, game.id) : undefined;
    const secretChanged = stored ? openSecret(stored.secret_sealed, secretContext(game.id)) !== game.secret : null;
    const keepWebhookSecrets = exists && game.webhookSecrets.length === 0;
    const values = {
      name: game.name,
      environment: game.environment,
      base_url: game.baseUrl,
      secret_sealed: sealSecret(game.secret, secretContext(game.id), key),
      secret_mask: maskSecret(game.secret),
      ...(keepWebhookSecrets
        ? {}
        : {
            webhook_secret_sealed: current ? sealSecret(current, webhookContext(game.id), key) : null,
            webhook_secret_mask: current ? maskSecret(current) : null,
            webhook_previous_secret_sealed: previous ? sealSecret(previous, webhookContext(game.id), key) : null,
            webhook_previous_secret_mask: previous ? maskSecret(previous) : null,
            webhook_previous_expires_at: previous ? graceEnd() : null,
          }),
      updated_at: new Date(),
    };
    if (exists) await updateGame(trx, game.id, values);
    else await insertGame(trx, { id: game.id, settings: "{}", ...values });
    const found = await findGame(trx, game.id);
    if (!found) throw new Error("game vanished after saving");
    await recordAudit(trx, {
      ...options.as,
      action: exists ? "game.update" : "game.create",
      gameId: found.id,
      target: found.id,
      outcome: "succeeded",
      detail: {
        name: found.name,
        environment: found.environment,
        baseUrl: found.baseUrl,
        webhookSecrets: game.webhookSecrets.length,
        ...(before
          ? {
              secretChanged,
              webhookSecretsKept: keepWebhookSecrets,
              before: {
                name: before.name,
                environment: before.environment,
                baseUrl: before.baseUrl,
                webhookSecrets: webhookSecretCount(before),
              },
            }
          : {}),
      },
    });
    return found;
  });
  forgetSigningSecrets(game.id);
  return saved;
}

/** The signing secrets a game accepts now: its current one, and the previous one during a rotation's grace. */
function webhookSecretCount(game: GameSummary): number {
  return (game.webhookSecretMask ? 1 : 0) + (game.webhookPreviousSecretMask ? 1 : 0);
}

/**
 * Replaces the webhook signing secret and keeps the one it replaces as "previous", which stays accepted during
 * the service's 7-day rotation grace.
 */
export async function rotateWebhookSecret(
  db: Db,
  gameId: string,
  newSecret: string,
  as: ActingAs,
): Promise<{ previousKept: boolean }> {
  const rotated = await inTransaction(db, async (trx) => {
    const key = await sealingKey(trx);
    const row = await lockGameWebhookSecret(trx, gameId);
    if (!row) throw new AppError("NOT_FOUND", `No game ${gameId}.`);
    if (row.webhook_secret_sealed && openSecret(row.webhook_secret_sealed, webhookContext(gameId)) === newSecret)
      throw new AppError("INVALID_INPUT", "is the current signing secret already", { field: "webhookSecret" });
    await updateGame(trx, gameId, {
      webhook_secret_sealed: sealSecret(newSecret, webhookContext(gameId), key),
      webhook_secret_mask: maskSecret(newSecret),
      webhook_previous_secret_sealed: row.webhook_secret_sealed,
      webhook_previous_secret_mask: row.webhook_secret_mask,
      webhook_previous_expires_at: row.webhook_secret_sealed ? graceEnd() : null,
      updated_at: new Date(),
    });
    await recordAudit(trx, {
      ...as,
      action: "game.rotate_webhook_secret",
      gameId,
      target: gameId,
      outcome: "succeeded",
    });
    return { previousKept: row.webhook_secret_sealed !== null };
  });
  forgetSigningSecrets(gameId);
  return rotated;
}

/**
 * Stops accepting the previous signing secret now (for a secret that leaked), instead of after the grace. Whether
 * one was still accepted: when none was (revoked by a colleague meanwhile, or its grace over), nothing changes and the
 * audit line says so.
 */
export async function revokePreviousWebhookSecret(db: Db, gameId: string, as: ActingAs): Promise<{ revoked: boolean }> {
  const revoked = await inTransaction(db, async (trx) => {
    const row = await lockGameWebhookSecret(trx, gameId);
    if (!row) throw new AppError("NOT_FOUND", `No game ${gameId}.`);
    const accepted =
      row.webhook_previous_secret_sealed !== null &&
      row.webhook_previous_expires_at !== null &&
      row.webhook_previous_expires_at.getTime() > Date.now();
    if (row.webhook_previous_secret_sealed !== null) {
      await updateGame(trx, gameId, {
        webhook_previous_secret_sealed: null,
        webhook_previous_secret_mask: null,
        webhook_previous_expires_at: null,
        updated_at: new Date(),
      });
    }
    await recordAudit(trx, {
      ...as,
      action: "game.revoke_previous_webhook_secret",
      gameId,
      target: gameId,
      outcome: accepted ? "succeeded" : "nothing_changed",
    });
    return accepted;
  });
  forgetSigningSecrets(gameId);
  return { revoked };
}

export type GameCredentials = {
  id: string;
  environment: "sandbox" | "production";
  baseUrl: string;
  secret: string;
  webhookSecrets: string[];
};

/** The plain secrets of a game, for server-side calls to the service and webhook checks only. */
export async function readGameCredentials(db: Db, gameId: string): Promise<GameCredentials> {
  const row = await readSealedGameSecrets(db, gameId);
  if (!row) throw new AppError("NOT_FOUND", `No game ${gameId}.`);
  const previousValid =
    row.webhook_previous_expires_at !== null && row.webhook_previous_expires_at.getTime() > Date.now();
  const webhookSecrets = [row.webhook_secret_sealed, previousValid ? row.webhook_previous_secret_sealed : null]
    .filter((value): value is string => value !== null)
    .map((sealed) => openSecret(sealed, webhookContext(row.id)));
  return {
    id: row.id,
    environment: row.environment,
    baseUrl: row.base_url,
    secret: openSecret(row.secret_sealed, secretContext(row.id)),
    webhookSecrets,
  };
}

/**
 * The games, read once for all that one page render asks (the desk layout and the page both do), through React's
 * request cache: it holds for one server render only, so server actions and route handlers read afresh on each call.
 */
export const listGamesOfRender = cache((db: Db): Promise<GameSummary[]> => listGames(db));

/**
 * The game this session works on: the one it chose, else the first game (and that choice is remembered). Read once
 * per page render, like listGamesOfRender.
 */
export const resolveSelectedGame = cache(async (db: Db, user: CurrentUser): Promise<GameSummary | null> => {
  const games = await listGamesOfRender(db);
  const chosen = await getSelectedGameId(db, user.sessionId);
  const game = games.find((g) => g.id === chosen) ?? games[0] ?? null;
  if (game && game.id !== chosen) await setSelectedGameId(db, user.sessionId, game.id);
  return game;
});

export async function requireSelectedGame(db: Db, user: CurrentUser): Promise<GameSummary> {
  const game = await resolveSelectedGame(db, user);
  if (!game) {
    throw new AppError("NO_GAME_SELECTED", "No game is set up yet: an admin adds one under Settings → Games.");
  }
  return game;
}
