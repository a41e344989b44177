import "server-only";
import { z } from "zod";
import type { Db } from "@/db";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { answeredForAnotherGame } from "@/lib/service/answered-game";
import type { ServiceClientConfig } from "@/lib/service/client";
import { serviceClientForGame } from "@/lib/service/for-game";
import { INTERACTIVE_CLIENT } from "./call";

const playerBlockSchema = z.object({ player_email: z.string().trim().min(3).max(254).includes("@") });

/**
 * The player's email, as the service knows the subscription's player ("include_player (boolean, default false) adds a
 * player block"). Kept with the attempt for the receipt page's links; never taken from what a browser sends. The same
 * answer says which game the subscription is: another game's (that game's secret saved for this one) is refused.
 */
export async function readPlayerEmail(
  db: Db,
  gameId: string,
  subscriptionId: string,
  clientOverrides: Partial<ServiceClientConfig>,
): Promise<string | null> {
  const response = await serviceClientForGame(db, gameId, { ...INTERACTIVE_CLIENT, ...clientOverrides })
    .then((client) => client.getSubscription(subscriptionId, { includePlayer: true }))
    .catch((error: unknown) => {
      // The email only labels the attempt; a refund is not held back because the player could not be read.
      log.warn("could not read the subscription's player for a refund", {
        game: gameId,
        subscription: subscriptionId,
        error,
      });
      return null;
    });
  if (!response) return null;
  // The secret saved for this game is another game's: its subscription is not refunded from this game.
  if (response.subscription.game_id !== gameId)
    throw new AppError(
      "CONFLICT",
      `${answeredForAnotherGame(response.subscription.game_id, gameId)}. Nothing was sent.`,
    );
  const parsed = playerBlockSchema.safeParse(response.player);
  return parsed.success ? parsed.data.player_email : null;
}
