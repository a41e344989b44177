import "server-only";
import { sql, type Kysely, type Transaction } from "kysely";
import type { Db } from "@/db";
import type { Database } from "@/db/types";
import { COLUMNS, toAttempt, type RefundAttempt } from "./refunds";

type Executor = Db | Kysely<Database> | Transaction<Database>;

/**
 * The hold a request takes on a refund attempt to call the service, and the attempts nobody holds. Times of holds are
 * given by the caller (epoch ms): the database's clock (`databaseNowMs`, scalar.ts), the same for every process, or
 * a test's.
 */

/** A hold on an attempt: its length, and the time it is taken or renewed at (epoch ms). */
export type LeaseTerms = { leaseMs: number; nowMs: number };

/**
 * Takes the attempt for one call to the service: only a pending attempt nobody else holds (or whose hold has run
 * out, after a crash) can be taken, so concurrent submissions never call the service at the same time. An attempt
 * never sent (no period check, no call) is taken for its check first: the call is counted when the check passes.
 * A hold that ran out on a sent attempt means its holder died (or lost touch) with a call out: that call's outcome is
 * unknown, and the attempt says so from now on.
 */
export async function claimRefundAttempt(db: Executor, id: string, terms: LeaseTerms): Promise<RefundAttempt | null> {
  const unsent = sql<boolean>`(period_checked_at is null and calls = 0)`;
  const now = new Date(terms.nowMs);
  const row = await db
    .updateTable("refund_attempt")
    .set({
      claimed_until: new Date(terms.nowMs + terms.leaseMs),
      claim_token: sql`gen_random_uuid()`,
      outcome_unknown: sql`outcome_unknown or (claimed_until is not null and not ${unsent})`,
      calls: sql`case when ${unsent} then calls else calls + 1 end`,
      last_called_at: sql`case when ${unsent} then last_called_at else now() end`,
      updated_at: sql`now()`,
    })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]))
    .returning(COLUMNS)
    .executeTakeFirst();
  return row ? toAttempt(row) : null;
}

/** Extends the hold of the request whose token it is, while its call runs; false when it no longer holds it. */
export async function renewRefundLease(db: Executor, id: string, token: string, terms: LeaseTerms): Promise<boolean> {
  const row = await db
    .updateTable("refund_attempt")
    .set({ claimed_until: new Date(terms.nowMs + terms.leaseMs) })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .where("claim_token", "=", token)
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
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

/**
 * Pending attempts nobody holds whose last call is older than `idleSeconds`: left by a crash or waiting for a
 * retry.
 */
export async function listStalePendingAttempts(
  db: Executor,
  options: { idleSeconds: number; limit: number; nowMs: number },
): Promise<RefundAttempt[]> {
  const now = new Date(options.nowMs);
  const rows = await db
    .selectFrom("refund_attempt")
    .select(COLUMNS)
    .where("status", "=", "pending")
    .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", now)]))
    .where(
      sql<boolean>`coalesce(last_called_at, created_at)
        < ${now}::timestamptz - make_interval(secs => ${options.idleSeconds})`,
    )
    .orderBy("created_at", "asc")
    .limit(options.limit)
    .execute();
  return rows.map(toAttempt);
}

/** The end of a subscription change's hold `holdMs` from now, by the database's clock. */
const heldFor = (holdMs: number) => sql<Date>`now() + make_interval(secs => ${holdMs / 1000})`;

/**
 * Holds a subscription for one change until `holdMs` from now (the database's clock): false when another change holds
 * it and its hold has not lapsed.
 */
export async function holdSubscriptionForChange(
  db: Executor,
  params: { gameId: string; subscriptionId: string; token: string; holdMs: number },
): Promise<boolean> {
  const until = heldFor(params.holdMs);
  const row = await db
    .insertInto("subscription_change_hold")
    .values({ game_id: params.gameId, subscription_id: params.subscriptionId, token: params.token, held_until: until })
    .onConflict((oc) =>
      oc
        .columns(["game_id", "subscription_id"])
        .doUpdateSet({ token: params.token, held_until: until })
        .where("subscription_change_hold.held_until", "<", sql<Date>`now()`),
    )
    .returning("token")
    .executeTakeFirst();
  return row?.token === params.token;
}

/** Ends a change's hold on its subscription (only the hold with its token). */
export async function releaseSubscriptionHold(
  db: Executor,
  params: { gameId: string; subscriptionId: string; token: string },
): Promise<void> {
  await db
    .deleteFrom("subscription_change_hold")
    .where("game_id", "=", params.gameId)
    .where("subscription_id", "=", params.subscriptionId)
    .where("token", "=", params.token)
    .execute();
}

/**
 * Extends a change's hold on its subscription by `holdMs` from now; false when its hold lapsed (taken by another change
 * or not): a change whose check outlasted its hold is refused, nothing sent.
 */
export async function renewSubscriptionHold(
  db: Executor,
  params: { gameId: string; subscriptionId: string; token: string; holdMs: number },
): Promise<boolean> {
  const result = await db
    .updateTable("subscription_change_hold")
    .set({ held_until: heldFor(params.holdMs) })
    .where("game_id", "=", params.gameId)
    .where("subscription_id", "=", params.subscriptionId)
    .where("token", "=", params.token)
    .where("held_until", ">=", sql<Date>`now()`)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
