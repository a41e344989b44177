import type { Db } from "@/db";
import { findBatchGame } from "@/db/queries/payout-lookup";
import { CliError } from "./cli";

/**
 * The game of the payout batch --batch names, or the command's refusal. Commands that act for a person ask it before
 * the password: a mistyped id costs neither a password typed for nothing nor an attempt counted against the account.
 */
export async function gameOfBatch(db: Db, batchId: string): Promise<string> {
  const gameId = await findBatchGame(db, batchId);
  if (!gameId) throw new CliError(`--batch: no payout batch ${batchId}`);
  return gameId;
}
