import "server-only";
import type { Db } from "@/db";
import { readGameAutomation, resetWebhookEvent, updateGameAutomation } from "@/db/queries/webhooks";
import type { ActingAs } from "@/core/actor";
import type { GameAutomation } from "@/core/game-automation";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { queueWebhookProcessing } from "./receive";

/** Sets a game's automatic pulls (its other settings are kept), with its audit line, in one transaction. */
export async function saveGameAutomation(
  db: Db,
  gameId: string,
  automation: GameAutomation,
  as: ActingAs,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Read under the row's lock, so that the line says what this change replaced.
    const before = await readGameAutomation(trx, gameId, { lock: true });
    if (!before || !(await updateGameAutomation(trx, gameId, automation)))
      throw new AppError("NOT_FOUND", `No game ${gameId}.`);
    await recordAudit(trx, {
      ...as,
      action: "game.automation",
      gameId,
      target: gameId,
      outcome: "succeeded",
      detail: { ...automation, before },
    });
  });
}

/**
 * Processes a failed event of the game again: back to pending with every try again and its audit line (which keeps
 * the error and the tries it had) in one transaction, then queued. A queueing that fails is left to the sweep, which
 * takes up events left pending.
 */
export async function retryWebhookEvent(db: Db, gameId: string, eventId: string, as: ActingAs): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const reset = await resetWebhookEvent(trx, gameId, eventId);
    if (!reset)
      throw new AppError("CONFLICT", "Only a failed event of this game can be processed again.", { field: "eventId" });
    await recordAudit(trx, {
      ...as,
      action: "webhook.retry",
      gameId,
      target: eventId,
      outcome: "queued",
      detail: { lastError: reset.lastError, attempts: reset.attempts },
    });
  });
  await queueWebhookProcessing(eventId).catch((error: unknown) =>
    log.warn("a webhook event to process again was not queued; the sweep takes it up", { event: eventId, error }),
  );
}
