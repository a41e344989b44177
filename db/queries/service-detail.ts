import "server-only";
import type { Insertable } from "kysely";
import type { DbOrTrx } from "@/db";
import type { Database } from "@/db/types";

/**
 * The cache of the service's drill-down detail: one row per fetch of a period (service_period_detail) or of a
 * subscription's cycles (service_subscription_attribution). A read takes the newest fetch not invalidated.
 */

type DetailTable = "service_period_detail" | "service_subscription_attribution";

/** Stores one fetch in a detail cache; returns its id and when it was fetched. */
async function storeFetch<T extends DetailTable>(db: DbOrTrx, table: T, values: Insertable<Database[T]>) {
  return db.insertInto(table).values(values).returning(["id", "fetched_at"]).executeTakeFirstOrThrow();
}

export async function findCachedPeriodDetail(
  db: DbOrTrx,
  params: { gameId: string; periodId: number; fetchedSince?: Date },
): Promise<{ id: string; fetched_at: Date; body: string } | undefined> {
  let query = db
    .selectFrom("service_period_detail")
    .select(["id", "fetched_at", "body"])
    .where("game_id", "=", params.gameId)
    .where("period_id", "=", String(params.periodId))
    .where("invalidated_at", "is", null);
  if (params.fetchedSince) query = query.where("fetched_at", ">=", params.fetchedSince);
  return query.orderBy("fetched_at", "desc").limit(1).executeTakeFirst();
}

export async function insertPeriodDetail(
  db: DbOrTrx,
  params: { gameId: string; periodId: number; subscriptionId: string; body: string },
): Promise<{ id: string; fetched_at: Date }> {
  return storeFetch(db, "service_period_detail", {
    game_id: params.gameId,
    period_id: params.periodId,
    subscription_id: params.subscriptionId,
    body: params.body,
  });
}

export async function findCachedSubscriptionAttribution(
  db: DbOrTrx,
  params: { gameId: string; subscriptionId: string; fetchedSince?: Date },
): Promise<{ id: string; fetched_at: Date; body: unknown; page_count: number } | undefined> {
  let query = db
    .selectFrom("service_subscription_attribution")
    .select(["id", "fetched_at", "body", "page_count"])
    .where("game_id", "=", params.gameId)
    .where("subscription_id", "=", params.subscriptionId)
    .where("invalidated_at", "is", null);
  if (params.fetchedSince) query = query.where("fetched_at", ">=", params.fetchedSince);
  return query.orderBy("fetched_at", "desc").limit(1).executeTakeFirst();
}

export async function insertSubscriptionAttribution(
  db: DbOrTrx,
  params: { gameId: string; subscriptionId: string; pageCount: number; body: unknown; pages: string[] },
): Promise<{ id: string; fetched_at: Date }> {
  return storeFetch(db, "service_subscription_attribution", {
    game_id: params.gameId,
    subscription_id: params.subscriptionId,
    page_count: params.pageCount,
    body: JSON.stringify(params.body),
    pages: JSON.stringify(params.pages),
  });
}

async function invalidate(
  db: DbOrTrx,
  table: DetailTable,
  where: { gameId: string; column: "subscription_id" | "period_id"; value: string },
  at: Date,
): Promise<void> {
  await db
    .updateTable(table)
    .set({ invalidated_at: at })
    .where("game_id", "=", where.gameId)
    .where(where.column as "subscription_id", "=", where.value)
    .where("invalidated_at", "is", null)
    .execute();
}

/** Drops every cached fetch of a subscription: its cycles and each of its periods. */
export async function invalidateSubscriptionDetail(
  db: DbOrTrx,
  params: { gameId: string; subscriptionId: string; at: Date },
): Promise<void> {
  const where = { gameId: params.gameId, column: "subscription_id" as const, value: params.subscriptionId };
  await invalidate(db, "service_subscription_attribution", where, params.at);
  await invalidate(db, "service_period_detail", where, params.at);
}

export async function invalidatePeriodDetail(
  db: DbOrTrx,
  params: { gameId: string; periodId: number; at: Date },
): Promise<void> {
  const where = { gameId: params.gameId, column: "period_id" as const, value: String(params.periodId) };
  await invalidate(db, "service_period_detail", where, params.at);
}
