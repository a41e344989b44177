import "server-only";
import { sql } from "kysely";
import type { DbOrTrx } from "../index";

/** A recipient's negative balance that a statement of another batch holds or carried out, taken in by no statement. */
export type NegativeBalanceElsewhere = {
  recipientPlayerId: number;
  statementId: string;
  /** Negative: the draft's available balance, or the balance carried forward. */
  amountUsd: string;
  kind: "draft" | "carried_out";
  windowStart: Date;
  windowEnd: Date;
  since: Date;
};

/**
 * For each statement of the batch still to be approved, released or paid with something payable, the recipient's
 * negative balances its figures do not take in: a statement of another batch not approved yet (a draft, or approved in
 * a draft batch) whose available balance is negative (approving the batch carries it to a later statement, not to this
 * one), and a negative balance carried forward that no statement took in yet (carried after this statement was
 * prepared). Paying this statement in full would pay money the recipient owes.
 */
export async function listNegativeBalancesElsewhere(
  db: DbOrTrx,
  p: { gameId: string; batchId: string; recipientPlayerId?: number; recipientPlayerIds?: readonly number[] },
): Promise<NegativeBalanceElsewhere[]> {
  if (p.recipientPlayerIds?.length === 0) return [];
  const result = await sql<{
    player_id: string;
    statement_id: string;
    amount_usd: string;
    kind: "draft" | "carried_out";
    window_start: Date;
    window_end: Date;
    since: Date;
  }>`
    select s.recipient_player_id::text as player_id, x.id::text as statement_id,
      (case when x.state in ('draft', 'approved') then x.available_usd else x.carry_out_usd end)::text as amount_usd,
      case when x.state in ('draft', 'approved') then 'draft' else 'carried_out' end as kind,
      xb.window_start, xb.window_end, x.state_changed_at as since
    from payout_statement s
    join payout_statement x on x.game_id = s.game_id and x.recipient_player_id = s.recipient_player_id
      and x.batch_id <> s.batch_id
    join payout_batch xb on xb.id = x.batch_id and xb.status <> 'discarded'
    where s.game_id = ${p.gameId} and s.batch_id = ${p.batchId} and s.payable_usd > 0
      and s.state in ('draft', 'approved', 'held')
      and ((x.state in ('draft', 'approved') and x.available_usd < 0)
        or (x.state in ('paid', 'carried') and x.carry_out_usd < 0
          and not exists (select 1 from payout_carry c where c.from_statement_id = x.id)))
      ${p.recipientPlayerId === undefined ? sql`` : sql`and s.recipient_player_id = ${p.recipientPlayerId}`}
      ${p.recipientPlayerIds === undefined ? sql`` : sql`and s.recipient_player_id = any(${[...p.recipientPlayerIds]})`}
    order by s.recipient_player_id, xb.window_start, x.id`.execute(db);
  return result.rows.map((r) => ({
    recipientPlayerId: Number(r.player_id),
    statementId: r.statement_id,
    amountUsd: r.amount_usd,
    kind: r.kind,
    windowStart: r.window_start,
    windowEnd: r.window_end,
    since: r.since,
  }));
}
