import "server-only";
import { sql } from "kysely";
import type { Db } from "@/db";

/**
 * Whether the recipient attributed on a period has already been paid for it: a paid statement whose snapshot held
 * that period's renewal line for that recipient. The refund screen uses it to say that a reversal cannot be taken back
 * from that payment and is carried against the recipient's next payout instead.
 */
export async function wasRecipientPaidFor(db: Db, gameId: string, periodId: number): Promise<boolean> {
  const row = await db
    .selectFrom("snapshot_line as l")
    .innerJoin("payout_batch as b", "b.snapshot_id", "l.snapshot_id")
    .innerJoin("payout_statement as st", (join) =>
      join.onRef("st.batch_id", "=", "b.id").onRef("st.recipient_player_id", "=", "l.recipient_player_id"),
    )
    .select(sql<number>`1`.as("one"))
    .where("l.period_id", "=", String(periodId))
    .where("b.game_id", "=", gameId)
    .where("b.status", "<>", "discarded")
    .where("st.state", "=", "paid")
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
