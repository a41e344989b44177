import "server-only";
import type { DbOrTrx } from "@/db";

/**
 * Carry links (as `c`) out of the game's statements, each joined to the statement it carries from (as `f`), before
 * any select: a carry belongs to the game of its from-statement.
 */
export function carriesOfGame(db: DbOrTrx, gameId: string) {
  return db
    .selectFrom("payout_carry as c")
    .innerJoin("payout_statement as f", "f.id", "c.from_statement_id")
    .where("f.game_id", "=", gameId);
}
