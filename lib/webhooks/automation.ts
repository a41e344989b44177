import "server-only";
import type { Db } from "@/db";
import { readGameAutomation, resetWebhookEvent, updateGameAutomation } from "@/db/queries/webhooks";
import type { ActingAs } from "@/core/actor";
import type { GameAutomation } from "@/core/game-automation";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
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

/** Processes a failed event of the game again: back to pending, queued, audited. */
export async function retryWebhookEvent(db: Db, gameId: string, eventId: string, as: ActingAs): Promise<void> {
  if (!(await resetWebhookEvent(db, gameId, eventId))) {
    throw new AppError("CONFLICT", "Only a failed event of this game can be processed again.", { field: "eventId" });
  }
  await queueWebhookProcessing(eventId);
  await recordAudit(db, { ...as, action: "webhook.retry", gameId, target: eventId, outcome: "queued" });
}
