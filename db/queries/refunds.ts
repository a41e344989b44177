import "server-only";
import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import type { Db } from "@/db";
import type { Database, RefundAttemptStatus, RefundAttemptTable } from "@/db/types";

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
};

const COLUMNS = [
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
] as const;

function toAttempt(row: Selectable<RefundAttemptTable>): RefundAttempt {
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
  };
}

export type NewRefundAttempt = {
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
  actor: { id: string; email: string; role: string } | null;
  impact: Record<string, unknown>;
};

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

export async function findRefundAttempt(db: Executor, gameId: string, id: string): Promise<RefundAttempt | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const row = await db
    .selectFrom("refund_attempt")
    .select(COLUMNS)
    .where("game_id", "=", gameId)
    .where("id", "=", id)
    .executeTakeFirst();
  return row ? toAttempt(row) : null;
}

/** The live (not refused) attempt of an intent. */
export async function findAttemptByIntent(db: Executor, gameId: string, intentKey: string): Promise<RefundAttempt | null> {
  const row = await db
    .selectFrom("refund_attempt")
    .select(COLUMNS)
    .where("game_id", "=", gameId)
    .where("intent_key", "=", intentKey)
    .where("status", "<>", "failed")
    .executeTakeFirst();
  return row ? toAttempt(row) : null;
}

/** The pending or needs-attention attempt holding a period, if any. */
export async function findOpenAttemptForPeriod(
  db: Executor,
  gameId: string,
  subscriptionId: string,
  periodSeq: number,
): Promise<RefundAttempt | null> {
  const row = await db
    .selectFrom("refund_attempt")
    .select(COLUMNS)
    .where("game_id", "=", gameId)
    .where("subscription_id", "=", subscriptionId)
    .where("period_seq", "=", periodSeq)
    .where("status", "in", ["pending", "needs_attention"])
    .executeTakeFirst();
  return row ? toAttempt(row) : null;
}

/**
 * Takes the attempt for one call to the service: only a pending attempt nobody else holds (or whose hold has run
 * out, after a crash) can be taken, so concurrent submissions never call the service at the same time. An attempt
 * never sent (no period check, no call) is taken for its check first: the call is counted when the check passes.
 */
export async function claimRefundAttempt(db: Executor, id: string, leaseSeconds: number): Promise<RefundAttempt | null> {
  const unsent = sql<boolean>`(period_checked_at is null and calls = 0)`;
  const row = await db
    .updateTable("refund_attempt")
    .set({
      claimed_until: sql`now() + make_interval(secs => ${leaseSeconds})`,
      calls: sql`case when ${unsent} then calls else calls + 1 end`,
      last_called_at: sql`case when ${unsent} then last_called_at else now() end`,
      updated_at: sql`now()`,
    })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", sql<Date>`now()`)]))
    .returning(COLUMNS)
    .executeTakeFirst();
  return row ? toAttempt(row) : null;
}

/**
 * Records that the period still matched the review and counts the first call, while the caller holds the attempt and
 * before it sends anything: from then on the attempt may have reached the service, and is never checked again.
 */
export async function markAttemptPeriodChecked(db: Executor, id: string): Promise<RefundAttempt | null> {
  const row = await db
    .updateTable("refund_attempt")
    .set({ period_checked_at: sql`now()`, calls: sql`calls + 1`, last_called_at: sql`now()`, updated_at: sql`now()` })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .where("period_checked_at", "is", null)
    .returning(COLUMNS)
    .executeTakeFirst();
  return row ? toAttempt(row) : null;
}

/** Statuses whose amount is (or may be) refunded: a landed refund, one being sent, one a person has to look at. */
export const COUNTED_REFUND_STATUSES: readonly RefundAttemptStatus[] = ["succeeded", "pending", "needs_attention"];

/**
 * The total of the refunds made from Payout Desk on one period by actors of the given roles, as a decimal string.
 * An excluded attempt (one being stored in the same transaction) is left out.
 */
export async function sumPeriodRefundsByRoles(
  db: Executor,
  filter: { gameId: string; subscriptionId: string; periodSeq: number; roles: readonly string[]; excludeAttemptId?: string },
): Promise<string> {
  if (filter.roles.length === 0) return "0.00";
  let query = db
    .selectFrom("refund_attempt")
    .select(sql<string>`coalesce(sum(amount_usd), 0)::numeric(14, 2)::text`.as("total"))
    .where("game_id", "=", filter.gameId)
    .where("subscription_id", "=", filter.subscriptionId)
    .where("period_seq", "=", filter.periodSeq)
    .where("status", "in", [...COUNTED_REFUND_STATUSES])
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
      refundedAt: string | null;
      idempotentReplay: boolean;
    }
  | { status: "pending" | "failed" | "needs_attention"; errorCode: string | null; errorMessage: string; errorDetail: Record<string, unknown> | null };

/** Records the outcome of a call and releases the hold. Only a pending attempt changes. */
export async function finishRefundAttempt(db: Executor, id: string, finish: AttemptFinish): Promise<RefundAttempt | null> {
  const common = { claimed_until: null, updated_at: sql<Date>`now()` };
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
  const row = await db
    .updateTable("refund_attempt")
    .set(values)
    .where("id", "=", id)
    .where("status", "=", "pending")
    .returning(COLUMNS)
    .executeTakeFirst();
  return row ? toAttempt(row) : null;
}

/** Closes an attempt that needed manual attention, with what the person found. */
export async function resolveRefundAttempt(
  db: Executor,
  gameId: string,
  id: string,
  resolution: { note: string; by: string },
): Promise<RefundAttempt | null> {
  const row = await db
    .updateTable("refund_attempt")
    .set({ status: "resolved", resolution_note: resolution.note, resolved_by: resolution.by, updated_at: sql`now()`, completed_at: sql`now()` })
    .where("game_id", "=", gameId)
    .where("id", "=", id)
    .where("status", "=", "needs_attention")
    .returning(COLUMNS)
    .executeTakeFirst();
  return row ? toAttempt(row) : null;
}

/** Pending attempts nobody holds whose last call is older than `idleSeconds`: left by a crash or waiting for a retry. */
export async function listStalePendingAttempts(db: Executor, options: { idleSeconds: number; limit: number }): Promise<RefundAttempt[]> {
  const rows = await db
    .selectFrom("refund_attempt")
    .select(COLUMNS)
    .where("status", "=", "pending")
    .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", sql<Date>`now()`)]))
    .where(sql<boolean>`coalesce(last_called_at, created_at) < now() - make_interval(secs => ${options.idleSeconds})`)
    .orderBy("created_at", "asc")
    .limit(options.limit)
    .execute();
  return rows.map(toAttempt);
}

export async function listRefundAttempts(
  db: Executor,
  filter: { gameId: string; subscriptionId?: string; periodSeq?: number; statuses?: RefundAttemptStatus[]; limit?: number },
): Promise<RefundAttempt[]> {
  let query = db.selectFrom("refund_attempt").select(COLUMNS).where("game_id", "=", filter.gameId);
  if (filter.subscriptionId) query = query.where("subscription_id", "=", filter.subscriptionId);
  if (filter.periodSeq !== undefined) query = query.where("period_seq", "=", filter.periodSeq);
  if (filter.statuses?.length) query = query.where("status", "in", filter.statuses);
  const rows = await query.orderBy("created_at", "desc").limit(filter.limit ?? 100).execute();
  return rows.map(toAttempt);
}
