import "server-only";
import { z } from "zod";
import type { Db } from "@/db";
import { AppError } from "@/lib/errors";
import { answeredForAnotherGame } from "@/lib/service/answered-game";
import type { ServiceClientConfig } from "@/lib/service/client";
import { describeServiceFailure, isServiceError } from "@/lib/service/errors";
import { serviceClientForGame } from "@/lib/service/for-game";
import { INTERACTIVE_CLIENT } from "./call";

const playerBlockSchema = z.object({ player_email: z.string().trim().min(3).max(254).includes("@") });

/**
 * The player's email, as the service knows the subscription's player ("include_player (boolean, default false) adds a
 * player block"). Kept with the attempt for the receipt page's links; never taken from what a browser sends. The same
 * answer says which game the subscription is: another game's (that game's secret saved for this one) is refused, and
 * so is a refund whose subscription the service did not give (its game unconfirmed), nothing sent.
 */
export async function readPlayerEmail(
  db: Db,
  gameId: string,
  subscriptionId: string,
  clientOverrides: Partial<ServiceClientConfig>,
): Promise<string | null> {
  const client = await serviceClientForGame(db, gameId, { ...INTERACTIVE_CLIENT, ...clientOverrides });
  const response = await client.getSubscription(subscriptionId, { includePlayer: true }).catch((error: unknown) => {
    if (!isServiceError(error)) throw error;
    throw new AppError(
      "SERVICE_ERROR",
      `The service did not give the subscription to check before the refund, so nothing was sent: ` +
        describeServiceFailure(error),
      { cause: error },
    );
  });
  // The secret saved for this game is another game's: its subscription is not refunded from this game.
  if (response.subscription.game_id !== gameId)
    throw new AppError(
      "CONFLICT",
      `${answeredForAnotherGame(response.subscription.game_id, gameId)}. Nothing was sent.`,
    );
  // The email only labels the attempt: a player block the service left out or malformed leaves it unnamed.
  const parsed = playerBlockSchema.safeParse(response.player);
  return parsed.success ? parsed.data.player_email : null;
}
