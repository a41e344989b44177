import "server-only";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db";
import { statementNetOfSnapshotRecipient } from "./reversal-deducted";
import type { PayoutStatementState } from "@/db/types";
import { carriesOfGame } from "./carries";
import type { RowOf } from "./row-of";
import { isLatestVersion } from "./snapshots";
import { snapshotRecipientsOfGame } from "./snapshot-recipients";
import { anyOf } from "./chunks";

/**
 * Reads for the liability "as of" an instant (lib/payouts/liability.ts holds the rules): the payout records as they
 * stood then, and what the snapshots say was earned in windows that had ended by then. Every query filters by game.
 */

/** Batches prepared by the instant and not discarded by then. */
export async function listBatchesLiveAt(db: DbOrTrx, params: { gameId: string; asOf: Date }) {
  return db
    .selectFrom("payout_batch as b")
    .innerJoin("snapshot as s", "s.id", "b.snapshot_id")
    .select(["b.id", "b.window_start as windowStart", "b.window_end as windowEnd", "s.window_closed as windowClosed"])
    .where("b.game_id", "=", params.gameId)
    .where("b.prepared_at", "<=", params.asOf)
    .where((eb) => eb.or([eb("b.status", "<>", "discarded"), eb("b.discarded_at", ">", params.asOf)]))
    .execute();
}

export type LiabilityBatch = RowOf<typeof listBatchesLiveAt>;

export type LiabilityStatement = {
  statementId: string;
  batchId: string;
  /** The statement's state then: its last event at or before the instant. */
  state: PayoutStatementState;
  recipientPlayerId: string;
  playerName: string | null;
  playerEmail: string | null;
  netAttributedUsd: string;
  availableUsd: string;
  carryOutUsd: string;
  /** The batch was discarded later: its carried-in links are gone, so only its own net counts. */
  discardedLater: boolean;
};

/**
 * Every statement of a batch live at the instant, in the state it was in then. The payment recorded on a statement
 * counts from the day the money left (its paid-on day) when that is before it was
 * recorded: a file executed on 30 April whose results were imported on 2 May was paid by the end of 30 April. A paid-on
 * day more than one day before the UTC day of the statement's previous event (approved, or put in a file) cannot be
 * when the money left (the desk takes one day before, for a person whose day is behind UTC's): that payment counts
 * from when it was recorded. An earlier payment that came back is dated the same way, by the
 * paid-on day its return kept, so a figure for a day before the return does not change when the payment comes back.
 * The balance carried out is the one of that instant too: a statement carried forward whole since had carried out only
 * what it did not pay.
 */
export async function listStatementStatesAt(
  db: DbOrTrx,
  params: { gameId: string; asOf: Date },
): Promise<LiabilityStatement[]> {
  const result = await sql<LiabilityStatement>`
    with unsettled as (${unsettledAt(params)}),
    ev as (
      select e.id, e.statement_id, e.state_after, e.at,
        case when e.state_after <> 'paid' then null
          when st.state = 'paid' and e.id = max(e.id) filter (where e.state_after = 'paid')
            over (partition by e.statement_id) then st.paid_on
          -- A payment that came back: its paid-on day is kept on the return recorded after it.
          else (select r.paid_on from payment_return r
            where r.statement_id = e.statement_id and r.kind = 'returned' and r.at >= e.at
            order by r.at, r.id limit 1) end as paid_on,
        lag(e.at) over (partition by e.statement_id order by e.at, e.id) as before_at
      from payout_statement_event e
      join payout_statement st on st.id = e.statement_id
      join payout_batch b on b.id = st.batch_id
      where e.game_id = ${params.gameId} and b.game_id = ${params.gameId}
        and b.prepared_at <= ${params.asOf} and (b.status <> 'discarded' or b.discarded_at > ${params.asOf})
        and e.statement_id in (select id from unsettled)
    ), dated as (
      select id, statement_id, state_after,
        -- The desk takes a paid-on day one before the UTC day of the statement's last event (a person whose day is
        -- behind UTC's): such a payment counts from its day too.
        case when paid_on is not null
            and (before_at is null or paid_on >= (before_at at time zone 'UTC')::date - 1)
          then least(at, (paid_on + 1)::timestamp at time zone 'UTC')
          else at end as effective_at
      from ev
    )
    select distinct on (d.statement_id) d.statement_id as "statementId", st.batch_id as "batchId",
      d.state_after as state, st.recipient_player_id::text as "recipientPlayerId", st.player_name as "playerName",
      st.player_email as "playerEmail", st.net_attributed_usd::text as "netAttributedUsd",
      st.available_usd::text as "availableUsd",
      -- Carried forward whole since (a payment that came back, then held): what it carried out before, from the
      -- payable its event kept; the figure for a day before the carry does not change.
      coalesce((select st.available_usd - (c.detail->>'payableBeforeUsd')::numeric from payout_statement_event c
        where c.statement_id = st.id and c.kind = 'carried_forward' and c.at > ${params.asOf}
          and c.detail ? 'payableBeforeUsd'
        order by c.at, c.id limit 1), st.carry_out_usd)::text as "carryOutUsd",
      (b.status = 'discarded') as "discardedLater"
    from dated d
    join payout_statement st on st.id = d.statement_id
    join payout_batch b on b.id = st.batch_id
    where d.effective_at <= ${params.asOf}
    -- Of the events in effect by then, the last recorded: a payment dated on the day before the event it follows
    -- (the file made after midnight UTC) is still what came after it.
    order by d.statement_id, d.id desc`.execute(db);
  return result.rows;
}

/**
 * The statements whose state at the instant can count for anything: every one but those closed then for good, paid
 * or carried with nothing carried out and not changed since (every event at or before the instant). Those are most of
 * a game's history, and listStatementStatesAt leaves them out; a carried balance taken in by one of them is read with
 * its link (listCarryLinks).
 */
function unsettledAt(params: { gameId: string; asOf: Date }) {
  return sql`select st.id from payout_statement st
      where st.game_id = ${params.gameId} and (st.state not in ('paid', 'carried') or st.carry_out_usd <> 0)
    union
    select e.statement_id from payout_statement_event e where e.game_id = ${params.gameId} and e.at > ${params.asOf}`;
}

export type CarryLink = {
  from: string;
  to: string;
  /**
   * The taking statement's state and batch when it was closed for good by the instant (left out of
   * listStatementStatesAt, see unsettledAt) in a batch live then; null otherwise.
   */
  settled: { state: PayoutStatementState; batchId: string } | null;
};

/** Which statement took in each carried balance (from → to), for the statements given, as of the instant. */
export async function listCarryLinks(
  db: DbOrTrx,
  params: { gameId: string; fromStatementIds: string[]; asOf: Date },
): Promise<CarryLink[]> {
  if (params.fromStatementIds.length === 0) return [];
  const rows = await carriesOfGame(db, params.gameId)
    .innerJoin("payout_statement as t", "t.id", "c.to_statement_id")
    .innerJoin("payout_batch as b", "b.id", "t.batch_id")
    .select([
      "c.from_statement_id as from",
      "c.to_statement_id as to",
      "t.state",
      "t.batch_id as batchId",
      sql<boolean>`t.state in ('paid', 'carried') and t.carry_out_usd = 0
        and b.prepared_at <= ${params.asOf} and (b.status <> 'discarded' or b.discarded_at > ${params.asOf})
        and not exists (select 1 from payout_statement_event e
          where e.statement_id = t.id and e.at > ${params.asOf})`.as("settled"),
    ])
    .where("c.from_statement_id", "=", anyOf(params.fromStatementIds, "uuid"))
    .execute();
  return rows.map((r) => ({
    from: r.from,
    to: r.to,
    settled: r.settled ? { state: r.state as PayoutStatementState, batchId: r.batchId } : null,
  }));
}

/** The latest snapshot version of every window that had ended by the instant, earliest start first, shorter first. */
export async function listEndedWindowSnapshots(db: DbOrTrx, params: { gameId: string; asOf: Date }) {
  return db
    .selectFrom("snapshot as s")
    .select([
      "s.id as snapshotId",
      "s.version",
      "s.window_start as windowStart",
      "s.window_end as windowEnd",
      "s.window_closed as windowClosed",
    ])
    .where("s.game_id", "=", params.gameId)
    .where("s.window_end", "<=", params.asOf)
    .where(isLatestVersion("s"))
    .orderBy("s.window_start")
    .orderBy("s.window_end")
    .execute();
}

export type EndedWindowSnapshot = RowOf<typeof listEndedWindowSnapshots>;

/**
 * Net attributed per recipient over the snapshots given, as statements prepared from them at the instant would take
 * it: a reversal reported again is not deducted a second time where a batch of another window approved by then
 * deducted part of it.
 */
export async function sumSnapshotNetByRecipient(
  db: DbOrTrx,
  params: { gameId: string; snapshotIds: string[]; asOf: Date },
): Promise<{ recipientPlayerId: string; playerName: string | null; playerEmail: string | null; netUsd: string }[]> {
  if (params.snapshotIds.length === 0) return [];
  return snapshotRecipientsOfGame(db, params.gameId)
    .select([
      sql<string>`r.recipient_player_id::text`.as("recipientPlayerId"),
      sql<string | null>`max(r.player_name)`.as("playerName"),
      sql<string | null>`max(r.player_email)`.as("playerEmail"),
      // In cents as the statements will take them.
      sql<string>`sum(${statementNetOfSnapshotRecipient(params.asOf)})::text`.as("netUsd"),
    ])
    .where("r.snapshot_id", "in", params.snapshotIds)
    .groupBy("r.recipient_player_id")
    .execute();
}
