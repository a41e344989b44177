import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import type { Database } from "@/db/types";
import { approvePayoutBatch, approveStatements } from "@/lib/payouts/batches";
import { overrideFlag } from "@/lib/payouts/flag-override";
import type { TestDatabase } from "../support/db";
import { approver, prepareMonth, preparer, setUpPayoutsDatabase } from "../support/payouts";
import { web, GAME, insertSnapshot } from "./fixtures";

/**
 * An override covers the flag instance it was written for (its cause), never the flag for the whole batch: a later
 * stale mark or a later snapshot version is a new flag that blocks again. Flags are read inside the approving
 * transaction, after the batch lock, on that transaction's connection.
 */

let t: TestDatabase;
let db: Db;
setUpPayoutsDatabase((database) => {
  t = database;
  db = database.db;
});

async function markStale(instant: string, reason: string): Promise<void> {
  await db
    .insertInto("snapshot_stale_mark")
    .values({ game_id: GAME, instant: new Date(instant), reason, detail: JSON.stringify({}) })
    .execute();
}

/** The preparer overrides the batch's stale-snapshot flag: the cause named, else the flag as it stands. */
function overrideStaleness(batchId: string, reason: string, cause?: string) {
  return overrideFlag(
    db,
    { gameId: GAME, batchId, flag: "snapshot_stale", recipientPlayerId: null, reason, ...(cause ? { cause } : {}) },
    web(preparer),
  );
}

describe("flag overrides cover one cause", () => {
  it("a stale mark after an override of staleness blocks approval again", async () => {
    await insertSnapshot(db, { window: "2026-01", recipients: [{ id: 7001, gross: "20.00" }] });
    const { batchId } = await prepareMonth(db, "2026-01");
    await markStale("2026-01-10T00:00:00Z", "subscription.refunded SUB_a");
    const first = await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer));
    expect(first.changed).toBe(0);
    expect(first.skipped[0]?.reason).toMatch(/Stale snapshot/);

    await overrideStaleness(batchId, "Refund of a test order, nothing attributed");
    expect(
      (await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer))).changed,
    ).toBe(1);

    await markStale("2026-01-20T00:00:00Z", "subscription.refunded SUB_b");
    await expect(approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver))).rejects.toThrow(/Stale snapshot/);
    await expect(overrideStaleness(batchId, "Second refund checked too", "stale_mark:0")).rejects.toThrow(
      /changed since/,
    );

    await overrideStaleness(batchId, "Second refund checked too, not attributed");
    await expect(approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver))).resolves.toMatchObject({
      approved: 1,
    });
    const overrides = await db
      .selectFrom("payout_flag_override")
      .select(["cause", "raised_at"])
      .where("batch_id", "=", batchId)
      .orderBy("id")
      .execute();
    expect(overrides).toHaveLength(2);
    expect(overrides[0]?.cause).toMatch(/^stale_mark:\d+$/);
    expect(overrides[1]?.cause).toMatch(/^stale_mark:\d+$/);
    expect(overrides[0]?.cause).not.toBe(overrides[1]?.cause);
    expect(overrides.every((o) => o.raised_at instanceof Date)).toBe(true);
  });

  it("a newer snapshot version (with drift) after an override of the newer version blocks approval again", async () => {
    await insertSnapshot(db, { window: "2026-02", recipients: [{ id: 7002, gross: "30.00" }] });
    const { batchId } = await prepareMonth(db, "2026-02");
    await insertSnapshot(db, { window: "2026-02", recipients: [{ id: 7002, gross: "30.00" }] });
    await overrideFlag(
      db,
      {
        gameId: GAME,
        batchId,
        flag: "newer_snapshot",
        recipientPlayerId: null,
        reason: "Version 2 reproduced version 1 exactly",
      },
      web(preparer),
    );
    expect(
      (await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer))).changed,
    ).toBe(1);

    await insertSnapshot(db, { window: "2026-02", recipients: [{ id: 7002, gross: "45.00" }], drift: true });
    await expect(approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver))).rejects.toThrow(
      /Newer snapshot exists/,
    );
  });

  it(
    "reads window flags after taking the batch lock: " +
      "a stale mark made while approval waits for the lock blocks it",
    async () => {
      await insertSnapshot(db, { window: "2026-03", recipients: [{ id: 7003, gross: "25.00" }] });
      const { batchId } = await prepareMonth(db, "2026-03");
      await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer));

      const holder = new pg.Client({ connectionString: t.url });
      await holder.connect();
      try {
        await holder.query("begin");
        await holder.query("select pg_advisory_xact_lock(hashtext($1))", [`payouts|${GAME}`]);
        const approval = approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver)).then(
          () => "approved",
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
        // Wait until the approval is queued behind the lock (it has read whatever it reads before the lock).
        for (;;) {
          const { rows } = await holder.query<{ n: string }>(
            "select count(*) as n from pg_locks where locktype = 'advisory' and not granted " +
              "and database = (select oid from pg_database where datname = current_database())",
          );
          if (Number(rows[0]?.n) > 0) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
        await holder.query("insert into snapshot_stale_mark (game_id, instant, reason) values ($1, $2, $3)", [
          GAME,
          "2026-03-15T00:00:00Z",
          "subscription.renewed SUB_c",
        ]);
        await holder.query("commit");
        // Said as the window's flag, overridden on its page: holding a statement would not clear it.
        const refusal = await approval;
        expect(refusal).toMatch(/A flag on this window blocks the approval of its statements \(Stale snapshot\)/);
        expect(refusal).toMatch(/override it on the window's page/);
        expect(refusal).not.toMatch(/hold the payout/);
      } finally {
        await holder.end();
      }
    },
  );

  it("reads overrides and flags on the approving transaction's own connection (one connection is enough)", async () => {
    await insertSnapshot(db, {
      window: "2026-04",
      recipients: [{ id: 7004, gross: "35.00" }],
      unattributed: { spend_order_not_found: 1 },
    });
    const pool = new pg.Pool({ connectionString: t.url, max: 1, connectionTimeoutMillis: 5_000 });
    pool.on("error", () => {});
    const single = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    try {
      const { batchId } = await prepareMonth(single, "2026-04");
      await overrideFlag(
        single,
        {
          gameId: GAME,
          batchId,
          flag: "spend_order_not_found",
          recipientPlayerId: null,
          reason: "The one renewal was a test order",
        },
        web(preparer),
      );
      expect(
        (await approveStatements(single, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer))).changed,
      ).toBe(1);
      await expect(approvePayoutBatch(single, { gameId: GAME, batchId }, web(approver))).resolves.toMatchObject({
        approved: 1,
      });
    } finally {
      await single.destroy();
    }
  });
});
