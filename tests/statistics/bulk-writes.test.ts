import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listSnapshotDisputes, recordDisputeOpened } from "@/db/queries/disputes";
import { LINE_COLUMNS_WITHOUT_STATISTICS } from "@/db/migrations/2026_12_18_0900_snapshot_line_statistics";
import { lastAnalyzedAt } from "@/db/queries/statistics";
import { approveStatements, preparePayoutBatch } from "@/lib/payouts/batches";
import { takeSnapshotNow } from "@/lib/snapshots/pull";
import { ANALYZE_AFTER_ROWS } from "@/lib/statistics";
import { monthWindow } from "@/lib/time";
import { buildScenario, GAME_ID, startSnapshotEnv, type SnapshotTestEnv } from "../snapshots/helpers";

/**
 * A large write refreshes the planner's statistics of the tables it wrote as soon as it commits, so the pages opened
 * right after are planned for the rows now there (not for the tables as autovacuum last saw them), and those pages
 * reach the rows they show through an index.
 */

const WINDOW = monthWindow("2026-03");
const RECIPIENTS = 1_200;
let env: SnapshotTestEnv;
let snapshotId: string;

beforeAll(async () => {
  env = await startSnapshotEnv(
    buildScenario({
      recipients: RECIPIENTS,
      renewalsPerRecipient: 1,
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
    }),
  );
});
afterAll(async () => {
  await env?.close();
});

describe("statistics after bulk writes", () => {
  it("[finance] a snapshot and a batch of over a thousand rows refresh their tables' statistics", async () => {
    expect(RECIPIENTS).toBeGreaterThanOrEqual(ANALYZE_AFTER_ROWS);
    const snapshotTables = ["snapshot_line", "snapshot_recipient", "snapshot_page"] as const;
    const batchTables = ["payout_statement", "payout_statement_event"] as const;
    const before = await lastAnalyzedAt(env.db, [...snapshotTables, ...batchTables]);
    for (const table of [...snapshotTables, ...batchTables]) expect(before[table]).toBeNull();

    const summary = await takeSnapshotNow(env.db, { gameId: GAME_ID, window: WINDOW, requestedBy: null, via: "test" });
    expect(summary.recipients).toBe(RECIPIENTS);
    snapshotId = summary.snapshotId;
    const afterSnapshot = await lastAnalyzedAt(env.db, [...snapshotTables, ...batchTables]);
    for (const table of snapshotTables) expect(afterSnapshot[table]).toBeInstanceOf(Date);
    for (const table of batchTables) expect(afterSnapshot[table]).toBeNull();

    const prepared = await preparePayoutBatch(
      env.db,
      { gameId: GAME_ID, window: WINDOW },
      { actor: { id: "u-1", email: "finance@example.test" }, via: "cli" },
    );
    expect(prepared.statements).toBe(RECIPIENTS);
    const afterBatch = await lastAnalyzedAt(env.db, batchTables);
    for (const table of batchTables) expect(afterBatch[table]).toBeInstanceOf(Date);

    // Every statement approved at once: the statements' states are counted again, and the events written.
    const approved = await approveStatements(
      env.db,
      { gameId: GAME_ID, batchId: prepared.batchId, all: "draft_unflagged" },
      { actor: { id: "u-1", email: "finance@example.test" }, via: "cli" },
    );
    expect(approved.changed).toBe(RECIPIENTS);
    const afterApproval = await lastAnalyzedAt(env.db, batchTables);
    for (const table of batchTables)
      expect(afterApproval[table]?.getTime()).toBeGreaterThan(afterBatch[table]?.getTime() ?? Infinity);
  });

  it("[finance] the lines' statistics cover the columns queries filter, join and sort on, and only those", async () => {
    expect(snapshotId).toBeDefined();
    const analyzed = await sql<{ attname: string }>`
      select attname from pg_stats where schemaname = current_schema() and tablename = 'snapshot_line'`.execute(env.db);
    const columns = new Set(analyzed.rows.map((row) => row.attname));
    for (const column of ["snapshot_id", "period_id", "recipient_player_id", "paid_at", "mint_order_id"])
      expect(columns).toContain(column);
    expect(columns).toContain("attribution_unavailable_reason");
    for (const column of LINE_COLUMNS_WITHOUT_STATISTICS) expect(columns).not.toContain(column);
  });

  it("[finance] the window's disputes are looked up among the snapshot's lines by order", async () => {
    for (const n of [1, 2, 3]) {
      await recordDisputeOpened(env.db, {
        gameId: GAME_ID,
        disputeId: `dp_${n}`,
        orderId: `ord_elsewhere_${n}`,
        transactionId: null,
        reason: "fraudulent",
        usdAmount: "9.00",
        openedAt: new Date(WINDOW.startMs),
        eventId: `evt_${n}`,
      });
    }
    await env.db.transaction().execute(async (trx) => {
      const scans = async (index: string) =>
        Number(
          (await sql<{ n: string }>`select pg_stat_get_xact_numscans(${index}::regclass) as n`.execute(trx)).rows[0]?.n,
        );
      const before = await scans("snapshot_line_order_idx");
      // The orders are of card purchases outside this month: no line of the snapshot holds one.
      expect(await listSnapshotDisputes(trx, { gameId: GAME_ID, snapshotId })).toEqual([]);
      expect(await scans("snapshot_line_order_idx")).toBeGreaterThan(before);
    });
  });
});
