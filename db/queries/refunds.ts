import "server-only";
import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import type { Db } from "@/db";
import { countRows } from "./paging";
import type { Actor } from "@/core/actor";
import type { Database, RefundAttemptStatus, RefundAttemptTable, RefundResolutionOutcome } from "@/db/types";
import { UUID } from "@/core/uuid";

type Executor = Db | Kysely<Database> | Transaction<Database>;

export type RefundAttempt = {
  id: string;
  gameId: string;
  subscriptionId: string;
  periodSeq: number;
  periodId: number | null;
  playerEmail: string | null;
  amountUsd: string;
  remainingBeforeUsd: string;
  isFull: boolean;
  reason: string | null;
  clientRequestId: string;
  intentKey: string;
  status: RefundAttemptStatus;
  actorId: string | null;
  actorEmail: string | null;
  actorRole: string | null;
  impact: Record<string, unknown>;
  calls: number;
  claimedUntil: Date | null;
  lastCalledAt: Date | null;
  lastErrorCode: string | null;
  lastErrorMessage: string | null;
  lastErrorDetail: Record<string, unknown> | null;
  receipt: Record<string, unknown> | null;
  transactionId: string | null;
  refundedAt: Date | null;
  idempotentReplay: boolean | null;
  resolutionNote: string | null;
  resolvedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  /** When the period was read again before the first call; null while the attempt has never been sent. */
  periodCheckedAt: Date | null;
  /** Some call may have reached the service without a readable answer: only a receipt or the period report ends it. */
  outcomeUnknown: boolean;
  /** The holder's token while a request holds the attempt. */
  claimToken: string | null;
  /** What the person who settled the attempt found. */
  resolutionOutcome: RefundResolutionOutcome | null;
};

export const COLUMNS = [
  "id",
  "game_id",
  "subscription_id",
  "period_seq",
  "period_id",
  "player_email",
  "amount_usd",
  "remaining_before_usd",
  "is_full",
  "reason",
  "client_request_id",
  "intent_key",
  "status",
  "actor_id",
  "actor_email",
  "actor_role",
  "impact",
  "calls",
  "claimed_until",
  "last_called_at",
  "last_error_code",
  "last_error_message",
  "last_error_detail",
  "receipt",
  "transaction_id",
  "refunded_at",
  "idempotent_replay",
  "resolution_note",
  "resolved_by",
  "created_at",
  "updated_at",
  "completed_at",
  "period_checked_at",
  "outcome_unknown",
  "claim_token",
  "resolution_outcome",
] as const;

export function toAttempt(row: Selectable<RefundAttemptTable>): RefundAttempt {
  return {
    id: row.id,
    gameId: row.game_id,
    subscriptionId: row.subscription_id,
    periodSeq: row.period_seq,
    periodId: row.period_id === null ? null : Number(row.period_id),
    playerEmail: row.player_email,
    amountUsd: row.amount_usd,
    remainingBeforeUsd: row.remaining_before_usd,
    isFull: row.is_full,
    reason: row.reason,
    clientRequestId: row.client_request_id,
    intentKey: row.intent_key,
    status: row.status,
    actorId: row.actor_id,
    actorEmail: row.actor_email,
    actorRole: row.actor_role,
    impact: row.impact ?? {},
    calls: row.calls,
    claimedUntil: row.claimed_until,
    lastCalledAt: row.last_called_at,
    lastErrorCode: row.last_error_code,
    lastErrorMessage: row.last_error_message,
    lastErrorDetail: row.last_error_detail,
    receipt: row.receipt,
    transactionId: row.transaction_id,
    refundedAt: row.refunded_at,
    idempotentReplay: row.idempotent_replay,
    resolutionNote: row.resolution_note,
    resolvedBy: row.resolved_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    periodCheckedAt: row.period_checked_at,
    outcomeUnknown: row.outcome_unknown,
    claimToken: row.claim_token,
    resolutionOutcome: row.resolution_outcome,
  };
}

export type NewRefundAttempt = Pick<
  RefundAttempt,
  | "gameId"
  | "subscriptionId"
  | "periodSeq"
  | "periodId"
  | "playerEmail"
  | "amountUsd"
  | "remainingBeforeUsd"
  | "isFull"
  | "reason"
  | "clientRequestId"
  | "intentKey"
  | "impact"
> & { actor: (Actor & { role: string }) | null };

/**
 * Inserts the attempt unless its intent already has a live attempt, or its period already has an open one (the two
 * partial unique indexes); returns null in that case, and the caller reads what is there.
 */
export async function insertRefundAttempt(db: Executor, attempt: NewRefundAttempt): Promise<RefundAttempt | null> {
  const row = await db
    .insertInto("refund_attempt")
    .values({
      game_id: attempt.gameId,
      subscription_id: attempt.subscriptionId,
      period_seq: attempt.periodSeq,
      period_id: attempt.periodId,
      player_email: attempt.playerEmail,
      amount_usd: attempt.amountUsd,
      remaining_before_usd: attempt.remainingBeforeUsd,
      is_full: attempt.isFull,
      reason: attempt.reason,
      client_request_id: attempt.clientRequestId,
      intent_key: attempt.intentKey,
      actor_id: attempt.actor?.id ?? null,
      actor_email: attempt.actor?.email ?? null,
      actor_role: attempt.actor?.role ?? null,
      impact: JSON.stringify(attempt.impact),
    })
    .onConflict((oc) => oc.doNothing())
    .returning(COLUMNS)
    .executeTakeFirst();
  return row ? toAttempt(row) : null;
}

/** The attempts of one game with every column: what each read of a single attempt narrows down. */
function attemptsOfGame(db: Executor, gameId: string) {
  return db.selectFrom("refund_attempt").select(COLUMNS).where("game_id", "=", gameId);
}

async function firstAttempt(query: ReturnType<typeof attemptsOfGame>): Promise<RefundAttempt | null> {
  const row = await query.executeTakeFirst();
  return row ? toAttempt(row) : null;
}

export async function findRefundAttempt(db: Executor, gameId: string, id: string): Promise<RefundAttempt | null> {
  // A UUID as PostgreSQL reads one (8-4-4-4-12): anything else is no attempt, never a database error.
  if (!UUID.test(id)) return null;
  return firstAttempt(attemptsOfGame(db, gameId).where("id", "=", id));
}

/**
 * The live attempt of an intent: any but a refused one or one settled by hand as not refunded (nothing moved, so the
 * same refund may be made again with a fresh key). Matches the partial unique index on the intent.
 */
/** The game of an attempt, for callers that know only its id (the reconciler asked about one attempt). */
export async function findRefundAttemptGameId(db: Executor, id: string): Promise<string | null> {
  const row = await db.selectFrom("refund_attempt").select("game_id").where("id", "=", id).executeTakeFirst();
  return row?.game_id ?? null;
}

export async function findAttemptByIntent(db: Executor, gameId: string, intentKey: string) {
  return firstAttempt(
    attemptsOfGame(db, gameId)
      .where("intent_key", "=", intentKey)
      .where("status", "<>", "failed")
      .where(sql<boolean>`not (status = 'resolved' and resolution_outcome is not distinct from 'not_refunded')`),
  );
}

/** The pending or needs-attention attempt holding a period, if any. */
export async function findOpenAttemptForPeriod(
  db: Executor,
  gameId: string,
  subscriptionId: string,
  periodSeq: number,
): Promise<RefundAttempt | null> {
  return firstAttempt(
    attemptsOfGame(db, gameId)
      .where("subscription_id", "=", subscriptionId)
      .where("period_seq", "=", periodSeq)
      .where("status", "in", ["pending", "needs_attention"]),
  );
}

/**
 * Statuses whose amount is (or may be) refunded: a landed refund, one being sent, one a person has to look at, and one
 * settled by hand unless the person found nothing refunded. A refused attempt moved nothing.
 */
export const COUNTED_REFUND_STATUSES: readonly RefundAttemptStatus[] = [
  "succeeded",
  "pending",
  "needs_attention",
  "resolved",
];

/**
 * The total of the refunds made from Payout Desk on one period by actors of the given roles, as a decimal string.
 * An excluded attempt (one being stored in the same transaction) is left out.
 */
export async function sumPeriodRefundsByRoles(
  db: Executor,
  filter: {
    gameId: string;
    subscriptionId: string;
    periodSeq: number;
    roles: readonly string[];
    excludeAttemptId?: string;
  },
): Promise<string> {
  if (filter.roles.length === 0) return "0.00";
  let query = db
    .selectFrom("refund_attempt")
    .select(sql<string>`coalesce(sum(amount_usd), 0)::numeric(14, 2)::text`.as("total"))
    .where("game_id", "=", filter.gameId)
    .where("subscription_id", "=", filter.subscriptionId)
    .where("period_seq", "=", filter.periodSeq)
    .where("status", "in", [...COUNTED_REFUND_STATUSES])
    .where(sql<boolean>`resolution_outcome is distinct from 'not_refunded'`)
    .where("actor_role", "in", [...filter.roles]);
  if (filter.excludeAttemptId) query = query.where("id", "<>", filter.excludeAttemptId);
  const row = await query.executeTakeFirst();
  return row?.total ?? "0.00";
}

export type AttemptFinish =
  | {
      status: "succeeded";
      receipt: Record<string, unknown> | null;
      transactionId: string;
      /** Read from the service's text (which PostgreSQL may not read as it is: a comma fraction, no zone). */
      refundedAt: Date | null;
      idempotentReplay: boolean;
    }
  | {
      status: "pending" | "failed" | "needs_attention";
      errorCode: string | null;
      errorMessage: string;
      errorDetail: Record<string, unknown> | null;
    };

/**
 * Records the outcome of a call and releases the hold. Only a pending attempt changes. A receipt is recorded whoever
 * holds the attempt (it is the truth); any other outcome only by the holder named by `claimToken`, so a request that
 * lost its hold cannot end an attempt another request is calling. `outcomeUnknown` adds this call's unknown outcome.
 */
export async function finishRefundAttempt(
  db: Executor,
  id: string,
  finish: AttemptFinish,
  holder: { claimToken?: string | null; outcomeUnknown?: boolean } = {},
): Promise<RefundAttempt | null> {
  const common = {
    claimed_until: null,
    claim_token: null,
    updated_at: sql<Date>`now()`,
    outcome_unknown: holder.outcomeUnknown ? true : sql<boolean>`outcome_unknown`,
  };
  const values =
    finish.status === "succeeded"
      ? {
          ...common,
          status: "succeeded" as const,
          receipt: finish.receipt === null ? null : JSON.stringify(finish.receipt),
          transaction_id: finish.transactionId,
          refunded_at: finish.refundedAt,
          idempotent_replay: finish.idempotentReplay,
          completed_at: sql<Date>`now()`,
          last_error_code: null,
          last_error_message: null,
          last_error_detail: null,
        }
      : {
          ...common,
          status: finish.status,
          last_error_code: finish.errorCode,
          last_error_message: finish.errorMessage,
          last_error_detail: finish.errorDetail === null ? null : JSON.stringify(finish.errorDetail),
          completed_at: finish.status === "pending" ? null : sql<Date>`now()`,
        };
  let query = db.updateTable("refund_attempt").set(values).where("id", "=", id).where("status", "=", "pending");
  if (finish.status !== "succeeded" && holder.claimToken) query = query.where("claim_token", "=", holder.claimToken);
  const row = await query.returning(COLUMNS).executeTakeFirst();
  return row ? toAttempt(row) : null;
}

/**
 * Closes an attempt that needed manual attention, with what the person found: refunded (it counts like a landed
 * refund and keeps its intent) or not refunded (nothing moved: the intent is free again).
 */
export async function resolveRefundAttempt(
  db: Executor,
  gameId: string,
  id: string,
  resolution: { note: string; by: string; outcome: RefundResolutionOutcome },
): Promise<RefundAttempt | null> {
  const row = await db
    .updateTable("refund_attempt")
    .set({
      status: "resolved",
      resolution_note: resolution.note,
      resolved_by: resolution.by,
      resolution_outcome: resolution.outcome,
      updated_at: sql`now()`,
      completed_at: sql`now()`,
    })
    .where("game_id", "=", gameId)
    .where("id", "=", id)
    .where("status", "=", "needs_attention")
    .returning(COLUMNS)
    .executeTakeFirst();
  return row ? toAttempt(row) : null;
}

export async function listRefundAttempts(
  db: Executor,
  filter: {
    gameId: string;
    subscriptionId?: string;
    periodSeq?: number;
    statuses?: RefundAttemptStatus[];
    limit?: number;
    /** The longest waiting first (a work list); otherwise the latest first. */
    oldestFirst?: boolean;
  },
): Promise<RefundAttempt[]> {
  let query = db.selectFrom("refund_attempt").select(COLUMNS).where("game_id", "=", filter.gameId);
  if (filter.subscriptionId) query = query.where("subscription_id", "=", filter.subscriptionId);
  if (filter.periodSeq !== undefined) query = query.where("period_seq", "=", filter.periodSeq);
  if (filter.statuses?.length) query = query.where("status", "in", filter.statuses);
  const order = filter.oldestFirst ? "asc" : "desc";
  const rows = await query
    .orderBy("created_at", order)
    .orderBy("id", order)
    .limit(filter.limit ?? 100)
    .execute();
  return rows.map(toAttempt);
}

/** How many of the game's refund attempts are in these states. */
export async function countRefundAttempts(
  db: Executor,
  filter: { gameId: string; statuses: RefundAttemptStatus[] },
): Promise<number> {
  return countRows(
    db.selectFrom("refund_attempt").where("game_id", "=", filter.gameId).where("status", "in", filter.statuses),
  );
}
