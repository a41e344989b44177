import type { Db } from "@/db";
import { findGame, readGameSettings } from "@/db/queries/games";
import { CliError } from "./cli";

/**
 * The demo game's service is the emulator that `npm start` runs, at an address of that start. With the app stopped, a
 * pull from the command line would be refused a connection at every attempt until its retry budget ran out (15
 * minutes by default), then blame the game's base address: it is refused at once, saying what to start. An emulator
 * that answers anything at all, or a connection that fails otherwise, is left to the pull.
 */
export async function refuseDemoWithoutEmulator(db: Db, gameId: string): Promise<void> {
  const game = await findGame(db, gameId);
  if (!game || (await readGameSettings(db, gameId)).demo !== true) return;
  const refused = await fetch(game.baseUrl, { signal: AbortSignal.timeout(5_000) }).then(
    async (response) => {
      await response.body?.cancel();
      return false;
    },
    (error: Error & { cause?: { code?: string } }) => error.cause?.code === "ECONNREFUSED",
  );
  if (refused)
    throw new CliError(
      `${gameId} is the demo game, whose service is the emulator that npm start runs, and it is not running: ` +
        "start Payout Desk (npm start), then run this again.",
    );
}
