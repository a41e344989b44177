import "server-only";
import type { Db } from "@/db";
import {
  findCachedPeriodDetail,
  findCachedSubscriptionAttribution,
  insertPeriodDetail,
  insertSubscriptionAttribution,
} from "@/db/queries/service-detail";
import type { ServiceClientConfig } from "@/lib/service/client";
import {
  type CurrentRevenueShare,
  type PeriodReport,
  periodReportSchema,
  type RenewalLine,
  type ReportSubscription,
  type SubscriptionAttribution,
  subscriptionAttributionSchema,
} from "@/lib/service/schemas";
import { createCapturingClient } from "./capture";

/**
 * Drill-down from a snapshot to the service's detail, fetched on demand and cached: one period
 * (GET /reporting/periods/{period_id}: fee legs, every refund event with its transaction id, the charge) and one
 * subscription's cycles (GET /reporting/subscriptions/{id}/attribution). Every fetch is kept with its time, so
 * evidence can cite exactly what it showed; a read takes the newest fetch not invalidated (markWindowStale
 * invalidates the subscription's entries) and younger than `maxAgeMs`.
 */

export type CacheOptions = {
  /**
   * Accept a cached fetch at most this old. Default: any age (detail changes only through refunds, which
   * invalidate).
   */
  maxAgeMs?: number;
  /** Fetch again whatever the cache holds. */
  refresh?: boolean;
  clientOverrides?: Partial<ServiceClientConfig>;
};

function since(options: CacheOptions): Date | undefined {
  return options.maxAgeMs === undefined ? undefined : new Date(Date.now() - options.maxAgeMs);
}

export type CachedPeriodDetail = { cacheId: string; fetchedAt: Date; fromCache: boolean; detail: PeriodReport };

export async function getPeriodDetail(
  db: Db,
  gameId: string,
  periodId: number,
  options: CacheOptions & { subscriptionId?: string } = {},
): Promise<CachedPeriodDetail> {
  if (!options.refresh) {
    const cached = await findCachedPeriodDetail(db, { gameId, periodId, fetchedSince: since(options) });
    if (cached) {
      const parsed = periodReportSchema.safeParse(JSON.parse(cached.body));
      if (parsed.success)
        return { cacheId: cached.id, fetchedAt: cached.fetched_at, fromCache: true, detail: parsed.data };
    }
  }
  const { capture } = await createCapturingClient(db, gameId, options.clientOverrides);
  const { value, raw } = await capture((client) =>
    client.getPeriodReport(periodId, { subscriptionId: options.subscriptionId }),
  );
  const row = await insertPeriodDetail(db, {
    gameId,
    periodId,
    subscriptionId: value.period.subscription_id,
    body: raw,
  });
  return { cacheId: row.id, fetchedAt: row.fetched_at, fromCache: false, detail: value };
}

export type SubscriptionAttributionDetail = {
  subscription: ReportSubscription;
  currentRevenueShare: CurrentRevenueShare | null;
  lifetimeTotals: SubscriptionAttribution["lifetime_totals"];
  /** Every cycle, newest first ("Cycles are newest first"). */
  periods: RenewalLine[];
};

export type CachedSubscriptionAttribution = {
  cacheId: string;
  fetchedAt: Date;
  fromCache: boolean;
  pages: number;
  detail: SubscriptionAttributionDetail;
};

/** Offsets stop at 100,000 on this route; 1,000 pages of 100 is the most that can be read. */
const MAX_PAGES = 1_000;

export async function getSubscriptionAttribution(
  db: Db,
  gameId: string,
  subscriptionId: string,
  options: CacheOptions = {},
): Promise<CachedSubscriptionAttribution> {
  if (!options.refresh) {
    const cached = await findCachedSubscriptionAttribution(db, {
      gameId,
      subscriptionId,
      fetchedSince: since(options),
    });
    if (cached) {
      return {
        cacheId: cached.id,
        fetchedAt: cached.fetched_at,
        fromCache: true,
        pages: cached.page_count,
        detail: cached.body as unknown as SubscriptionAttributionDetail,
      };
    }
  }
  const { capture } = await createCapturingClient(db, gameId, options.clientOverrides);
  const raws: string[] = [];
  const periods: RenewalLine[] = [];
  let first: SubscriptionAttribution | null = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const { value, raw } = await capture((client) =>
      client.getSubscriptionAttribution(subscriptionId, { limit: 100, offset: periods.length }),
    );
    raws.push(raw);
    first ??= value;
    periods.push(...value.periods);
    if (!value.pagination.has_more || value.periods.length === 0) break;
  }
  if (!first) throw new Error("no page read");
  // Validated again as a whole so the cache never holds something the schema would refuse.
  const detail: SubscriptionAttributionDetail = {
    subscription: first.subscription,
    currentRevenueShare: first.current_revenue_share,
    lifetimeTotals: first.lifetime_totals,
    periods: subscriptionAttributionSchema.shape.periods.parse(periods),
  };
  const row = await insertSubscriptionAttribution(db, {
    gameId,
    subscriptionId,
    pageCount: raws.length,
    body: detail,
    pages: raws,
  });
  return { cacheId: row.id, fetchedAt: row.fetched_at, fromCache: false, pages: raws.length, detail };
}
