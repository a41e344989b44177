import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  findCachedPeriodDetail,
  findCachedSubscriptionAttribution,
  insertPeriodDetail,
  insertSubscriptionAttribution,
  invalidateSubscriptionDetail,
} from "@/db/queries/service-detail";
import { insertGame } from "../payouts/fixtures";
import { createTestDatabase, type TestDatabase } from "../support/db";

/** The cache of the service's drill-down detail: what is stored is read back until it is invalidated. */

let t: TestDatabase;
const GAME_ID = "detail-cache-game";

beforeAll(async () => {
  t = await createTestDatabase();
  await insertGame(t.db, GAME_ID);
});
afterAll(async () => t?.drop());

describe("service detail cache", () => {
  it("reads back the newest stored fetch of a period and of a subscription, then none once invalidated", async () => {
    const period = await insertPeriodDetail(t.db, {
      gameId: GAME_ID,
      periodId: 41,
      subscriptionId: "sub_1",
      body: "{}",
    });
    const cycles = await insertSubscriptionAttribution(t.db, {
      gameId: GAME_ID,
      subscriptionId: "sub_1",
      pageCount: 2,
      body: { periods: [] },
      pages: ["a", "b"],
    });
    expect(Object.keys(period).sort()).toEqual(["fetched_at", "id"]);
    expect(Object.keys(cycles).sort()).toEqual(["fetched_at", "id"]);

    const cachedPeriod = await findCachedPeriodDetail(t.db, { gameId: GAME_ID, periodId: 41 });
    expect(cachedPeriod).toMatchObject({ id: period.id, fetched_at: period.fetched_at });
    const cachedCycles = await findCachedSubscriptionAttribution(t.db, { gameId: GAME_ID, subscriptionId: "sub_1" });
    expect(cachedCycles).toMatchObject({ id: cycles.id, page_count: 2, body: { periods: [] } });

    await invalidateSubscriptionDetail(t.db, { gameId: GAME_ID, subscriptionId: "sub_1", at: new Date() });
    expect(await findCachedPeriodDetail(t.db, { gameId: GAME_ID, periodId: 41 })).toBeUndefined();
    expect(await findCachedSubscriptionAttribution(t.db, { gameId: GAME_ID, subscriptionId: "sub_1" })).toBeUndefined();
  });
});
