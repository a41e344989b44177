import "server-only";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db";

type FlagCandidateQuery = {
  gameId: string;
  batchId: string;
  state: "approved" | "draft";
  profilesInUse: boolean;
  taxFormBy: string | null;
  also: number[];
};

/**
 * The statements of a batch in `state` (approved, or draft) that a flag could stand open on, each flag's necessary
 * condition read in SQL so that most statements of a large batch are never read: a stored flag; on the payout profile,
 * no method (while the game uses profiles), details entered or changed that a payment may not have gone to yet, a
 * payment come back, a statement email refused, no valid tax form while one is required; a negative balance in another
 * batch; a recipient given (a chargeback's). A superset: lib/payouts/flags.ts and lib/profiles/flags.ts decide which
 * flags stand. The window's flags, on every statement, are the caller's.
 */
export async function listFlagCandidates(
  db: DbOrTrx,
  p: FlagCandidateQuery,
): Promise<{ recipientPlayerId: number; recipientFlags: string[] }[]> {
  const { rows } = await sql<{ recipient_player_id: string; recipient_flags: string[] }>`
    select s.recipient_player_id::text as recipient_player_id, s.recipient_flags
      from payout_statement s
      left join payout_profile pp on pp.game_id = s.game_id and pp.player_id = s.recipient_player_id
     where s.game_id = ${p.gameId} and s.batch_id = ${p.batchId} and s.state = ${p.state}
       and ${flagCandidate(p)}
     order by s.recipient_player_id`.execute(db);
  return rows.map((r) => ({ recipientPlayerId: Number(r.recipient_player_id), recipientFlags: r.recipient_flags }));
}

/**
 * Whether the batch has a statement in `state` that no flag can stand on (none of listFlagCandidates' conditions
 * holds): read up to the first such statement, which in most batches is the first read, where listing the candidates
 * reads every statement of the batch.
 */
export async function hasStatementNoFlagCanStandOn(db: DbOrTrx, p: FlagCandidateQuery): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`
    select exists (
      select 1
        from payout_statement s
        left join payout_profile pp on pp.game_id = s.game_id and pp.player_id = s.recipient_player_id
       where s.game_id = ${p.gameId} and s.batch_id = ${p.batchId} and s.state = ${p.state}
         and (${flagCandidate(p)}) is not true
    ) as found`.execute(db);
  return rows[0]?.found === true;
}

/** listFlagCandidates' condition on a statement `s` and its recipient's payout profile `pp` (null when none). */
function flagCandidate(p: FlagCandidateQuery) {
  const taxless =
    p.taxFormBy === null
      ? sql`false`
      : sql`(pp.tax_form is null or pp.tax_form = 'none' or pp.tax_form_expires_on < ${p.taxFormBy}::date)`;
  return sql`(jsonb_array_length(s.recipient_flags) > 0
         or (${p.profilesInUse} and pp.method is null)
         or (pp.method is not null and pp.details_applied_at is not null
             and (pp.details_version > 1
               or pp.details_applied_at > (select b.approved_at from payout_batch b where b.id = ${p.batchId})))
         -- The recipients of the game's returns, refusals and negative balances, each read once (not once a statement).
         or s.recipient_player_id in (select r.recipient_player_id from payment_return r
                                       where r.game_id = ${p.gameId} and not r.undone)
         or s.recipient_player_id in (select f.recipient_player_id from statement_delivery_failure f
                                       where f.game_id = ${p.gameId} and f.refused)
         or ${taxless}
         or s.recipient_player_id in (select x.recipient_player_id from payout_statement x
                                       join payout_batch xb on xb.id = x.batch_id
                                      where x.game_id = ${p.gameId} and x.batch_id <> ${p.batchId}
                                        and xb.status <> 'discarded'
                                        and ((x.state in ('draft', 'approved') and x.available_usd < 0)
                                          or (x.state in ('paid', 'carried') and x.carry_out_usd < 0)))
         or s.recipient_player_id = any(${p.also.map(String)}::bigint[]))`;
}
