import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { listPayoutTable, type PayoutTableQuery, searchRecipients } from "@/db/queries/payouts";
import { listLiability } from "@/lib/payouts/liability";
import { type ActiveFlag, recipientsFlaggedNow } from "@/lib/payouts/flags";
import { prepareMonth, settleBatch, setUpPayoutsDatabase } from "../support/payouts";
import { actor, web, GAME, insertSnapshot } from "./fixtures";

/**
 * The recipient payout table over 12,000 recipients: every page, from the front or read from the far end, is exactly
 * the slice of the full order; filters and search narrow in SQL. The Recipients page's search pages the same
 * recipients by player id, forwards and back.
 */

const N = 12_000;
let db: Db;
let batchId: string;
let snapshotId: string;

setUpPayoutsDatabase((t) => {
  db = t.db;
});
beforeAll(async () => {
  const snap = await insertSnapshot(db, { window: "2026-03", recipients: [] });
  snapshotId = snap.id;
  // Figures with many ties (net repeats every 500 recipients), some negative, some unresolved.
  await sql`insert into snapshot_recipient (snapshot_id, recipient_player_id, service_rank, resolved, player_email,
  player_name,
      identity_id, renewal_count, subscription_count, reversal_count, gross_attributed_usd, reversed_attributed_usd,
      net_attributed_usd, first_paid_at, last_paid_at)
    select ${snapshotId}::uuid, 500000 + i, i, i % 997 <> 0, 'creator' || i || '@t.test', 'Creator ' || i, null, 1 + i
    % 5, 1, 0,
      g, r, g - r, now(), now()
    from (select i, round(((i % 500) * 37 % 4000)::numeric / 100, 2) as g,
      case when i % 13 = 0 then 25.00 else 0 end as r from generate_series(1, ${N}) i) x`.execute(db);
  const prepared = await prepareMonth(db, "2026-03", web(actor("preparer")));
  batchId = prepared.batchId;
});

async function fullOrder(sort: "net" | "payable", dir: "asc" | "desc"): Promise<number[]> {
  const column = sort === "net" ? "net_attributed_usd" : "payable_usd";
  const rows = await sql<{
    id: string;
  }>`select recipient_player_id::text as id from payout_statement where batch_id = ${batchId}
    order by ${sql.ref(column)} ${sql.raw(dir)}, recipient_player_id
    ${sql.raw(dir === "asc" ? "desc" : "asc")}`.execute(db);
  return rows.rows.map((r) => Number(r.id));
}

describe("the recipient payout table", () => {
  it("gives every page as the exact slice of the full order, deep pages included", async () => {
    for (const [sort, dir] of [
      ["net", "desc"],
      ["payable", "asc"],
    ] as const) {
      const order = await fullOrder(sort, dir);
      expect(order).toHaveLength(N);
      for (const page of [1, 2, 30, 31, 45, 59, 60]) {
        const query: PayoutTableQuery = { gameId: GAME, snapshotId, batchId, sort, dir, page, pageSize: 200 };
        const result = await listPayoutTable(db, query);
        expect(result.total).toBe(N);
        expect(
          result.rows.map((r) => r.recipientPlayerId),
          `${sort} ${dir} page ${page}`,
        ).toEqual(order.slice((page - 1) * 200, page * 200));
      }
      const past = await listPayoutTable(db, { gameId: GAME, snapshotId, batchId, sort, dir, page: 61, pageSize: 200 });
      expect(past).toEqual({ rows: [], total: N });
    }
  });

  it("filters, searches and refuses another game's batch", async () => {
    const negative = await listPayoutTable(db, {
      gameId: GAME,
      snapshotId,
      batchId,
      sort: "net",
      dir: "asc",
      filter: "negative",
      page: 1,
      pageSize: 50,
    });
    expect(negative.total).toBeGreaterThan(0);
    expect(negative.rows.every((r) => r.netAttributedUsd.startsWith("-"))).toBe(true);
    const unresolved = await listPayoutTable(db, {
      gameId: GAME,
      snapshotId,
      batchId,
      sort: "net",
      dir: "desc",
      filter: "unresolved",
      page: 1,
      pageSize: 50,
    });
    expect(unresolved.total).toBe(Math.floor(N / 997));
    expect(unresolved.rows.every((r) => r.recipientFlags.includes("unresolved_recipient"))).toBe(true);
    // "Flagged": the flags stored on the statements, and the recipients flagged elsewhere (disputes, profiles).
    const flaggedQuery = { gameId: GAME, snapshotId, batchId, sort: "recipient" as const, dir: "asc" as const };
    const stored = await listPayoutTable(db, { ...flaggedQuery, filter: "flagged", page: 1, pageSize: 50 });
    expect(stored.rows.length).toBeGreaterThan(0);
    expect(stored.rows.every((r) => r.recipientFlags.length > 0)).toBe(true);
    // Two recipients' disputes (one twice), and a window-wide one; this game keeps no payout profiles.
    const dispute = (recipientPlayerId: number | null): ActiveFlag => ({
      flag: "disputed_renewal",
      label: "Disputed renewal",
      detail: "",
      recipientPlayerId,
      cause: `dispute:${recipientPlayerId}`,
      raisedAt: null,
    });
    const disputeFlags = [dispute(500002), dispute(500001), dispute(500002), dispute(null)];
    const flaggedElsewhere = await recipientsFlaggedNow(db, { gameId: GAME, batchId, disputeFlags });
    expect(flaggedElsewhere.sort((a, b) => a - b)).toEqual([500001, 500002]);
    const flagged = await listPayoutTable(db, {
      ...flaggedQuery,
      filter: "flagged",
      flaggedElsewhere,
      page: 1,
      pageSize: 50,
    });
    expect(flagged.total).toBe(stored.total + 2);
    expect(flagged.rows.slice(0, 2).map((r) => [r.recipientPlayerId, r.recipientFlags])).toEqual([
      [500001, []],
      [500002, []],
    ]);
    const byName = await listPayoutTable(db, {
      gameId: GAME,
      snapshotId,
      batchId,
      sort: "net",
      dir: "desc",
      q: "Creator 1234",
      page: 1,
      pageSize: 50,
    });
    expect(byName.rows.map((r) => r.playerName).sort()).toEqual(
      [
        "Creator 1234",
        "Creator 12340",
        "Creator 12341",
        "Creator 12342",
        "Creator 12343",
        "Creator 12344",
        "Creator 12345",
        "Creator 12346",
        "Creator 12347",
        "Creator 12348",
        "Creator 12349",
      ].filter((n) => Number(n.slice(8)) <= N),
    );
    const byId = await listPayoutTable(db, {
      gameId: GAME,
      snapshotId,
      batchId,
      sort: "net",
      dir: "desc",
      q: "500042",
      page: 1,
      pageSize: 50,
    });
    expect(byId.rows.map((r) => r.recipientPlayerId)).toEqual([500042]);
    const wildcard = await listPayoutTable(db, {
      gameId: GAME,
      snapshotId,
      batchId,
      sort: "net",
      dir: "desc",
      q: "%",
      page: 1,
      pageSize: 50,
    });
    expect(wildcard.total).toBe(0);
    const otherGame = await listPayoutTable(db, {
      gameId: "other",
      snapshotId,
      batchId,
      sort: "net",
      dir: "desc",
      page: 1,
      pageSize: 50,
    });
    expect(otherGame.total).toBe(0);
    const snapshotOnly = await listPayoutTable(db, {
      gameId: GAME,
      snapshotId,
      batchId: null,
      sort: "net",
      dir: "desc",
      page: 55,
      pageSize: 200,
    });
    expect(snapshotOnly.total).toBe(N);
    expect(snapshotOnly.rows).toHaveLength(200);
    expect(snapshotOnly.rows[0]?.state).toBeNull();
  });
});

describe("the liability view", () => {
  it("answers what is owed as of a date, from the records as they stood then", async () => {
    const db2 = db;
    await insertSnapshot(db2, {
      window: "2026-04",
      recipients: [
        { id: 1, gross: "40.00" },
        { id: 2, gross: "30.00" },
        { id: 3, gross: "5.00" },
        { id: 4, gross: "0.00", reversed: "12.00" },
      ],
    });
    // A quarter snapshotted beside its month holds the same renewals: counted once, not twice.
    await insertSnapshot(db2, {
      window: { startMs: Date.parse("2026-04-01T00:00:00Z"), endMs: Date.parse("2026-07-01T00:00:00Z") },
      recipients: [
        { id: 1, gross: "40.00" },
        { id: 2, gross: "30.00" },
      ],
    });
    const before = new Date();
    const { batchId: april } = await prepareMonth(db2, "2026-04", web(actor("preparer")));
    const paidByWise = { on: "2026-05-03", method: "wise" as const, reference: "WISE-APR" };
    const plan = { hold: [2], holdReason: "Bank details bounced", approve: [1, 3, 4], paid: paidByWise };
    let approvedAt = new Date(0);
    await settleBatch(db2, { batchId: april, month: "2026-04" }, plan, async (step) => {
      if (step !== "batch approved") return;
      approvedAt = new Date();
      await new Promise((r) => setTimeout(r, 5));
    });

    const rows = (asOf: Date) =>
      listLiability(db2, { gameId: GAME, asOf }).then(({ rows: list }) =>
        Object.fromEntries(list.map((r) => [r.recipientPlayerId, r])),
      );
    // Before the batch existed: all four recipients' nets are "not yet in a batch".
    const then = await rows(before);
    expect(then[1]).toMatchObject({ notInBatchUsd: "40.00", totalOwedUsd: "40.00" });
    expect(then[4]).toMatchObject({ notInBatchUsd: "-12.00" });
    // Approved, not yet paid.
    const approved = await rows(approvedAt);
    expect(approved[1]).toMatchObject({ approvedUnpaidUsd: "40.00", notInBatchUsd: "0.00", totalOwedUsd: "40.00" });
    expect(approved[2]).toMatchObject({ heldUsd: "30.00", totalOwedUsd: "30.00" });
    expect(approved[3]).toMatchObject({ rolledOverUsd: "5.00", totalOwedUsd: "5.00" });
    expect(approved[4]).toMatchObject({ carriedNegativeUsd: "-12.00", totalOwedUsd: "-12.00" });
    // Now: recipient 1 paid (owed nothing), 2 still held, 3 rolled, 4 negative.
    const now = await rows(new Date(Date.now() + 1000));
    expect(now[1]).toBeUndefined();
    expect(now[2]).toMatchObject({ heldUsd: "30.00" });
    expect(now[3]).toMatchObject({ rolledOverUsd: "5.00" });
    expect(now[4]).toMatchObject({ carriedNegativeUsd: "-12.00" });
  });
});

describe("recipient search", () => {
  it("pages every recipient of the game's snapshots once, forwards and back, and searches by name or id", async () => {
    // April repeats one of March's recipients and adds one.
    await insertSnapshot(db, {
      window: "2026-04",
      recipients: [
        { id: 500_001, gross: "1.00", name: "Creator 1" },
        { id: 512_001, gross: "2.00", name: "Zed Newcomer" },
      ],
    });
    const known = await sql<{ id: string }>`select distinct r.recipient_player_id as id from snapshot_recipient r
      join snapshot s on s.id = r.snapshot_id where s.game_id = ${GAME} order by 1`.execute(db);
    const everyone = known.rows.map((r) => Number(r.id));
    expect(everyone.slice(-(N + 1))).toEqual(Array.from({ length: N + 1 }, (_, i) => 500_001 + i));
    const ids = (page: { rows: { recipientPlayerId: number }[] }) => page.rows.map((r) => r.recipientPlayerId);
    const search = (params: { q?: string; after?: number; before?: number }) =>
      searchRecipients(db, { gameId: GAME, q: "", limit: 5_000, ...params });

    const walked: number[] = [];
    let page = await search({});
    expect(page).toMatchObject({ hasPrevious: false, hasNext: true });
    walked.push(...ids(page));
    while (page.hasNext) {
      page = await search({ after: walked.at(-1) });
      expect(page.hasPrevious).toBe(true);
      walked.push(...ids(page));
    }
    expect(walked).toEqual(everyone);
    expect(ids(page)).toEqual(everyone.slice(10_000));

    const back = await search({ before: ids(page)[0] });
    expect(ids(back)).toEqual(everyone.slice(5_000, 10_000));
    expect(back).toMatchObject({ hasPrevious: true, hasNext: true });
    const front = await search({ before: ids(back)[0] });
    expect(ids(front)).toEqual(everyone.slice(0, 5_000));
    expect(front).toMatchObject({ hasPrevious: false, hasNext: true });

    expect(ids(await search({ q: "Creator 1200" }))).toEqual([501_200, 512_000]);
    const byId = await search({ q: "512001" });
    expect(byId.rows).toEqual([
      { recipientPlayerId: 512_001, playerName: "Zed Newcomer", playerEmail: "r512001@example.test" },
    ]);
  });
});
