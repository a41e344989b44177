import "server-only";
import type { DbOrTrx } from "@/db";

/** The statements (as `st`) of one batch of the game, before any select. */
export function statementsOfBatch(db: DbOrTrx, params: { gameId: string; batchId: string }) {
  return db
    .selectFrom("payout_statement as st")
    .where("st.game_id", "=", params.gameId)
    .where("st.batch_id", "=", params.batchId);
}
