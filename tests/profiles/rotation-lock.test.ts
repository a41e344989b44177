import pg from "pg";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importProfiles } from "@/lib/profiles/bulk";
import { changePayoutDetails, reviewPayoutChange } from "@/lib/profiles/profiles";
import type { TestDatabase } from "../support/db";
import { waitFor } from "../support/wait";
import { GAME } from "../payouts/fixtures";
import { bank, createProfilesDatabase, finance, finance2 } from "./support";

/**
 * A change of payout details while a key rotation runs: the rotation locks the key check, then every sealed row. A
 * details write must wait for it, not hold a profile row while it waits for the key (a deadlock, one side aborted).
 */

let t: TestDatabase;
beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
});
afterAll(async () => t?.drop());

/**
 * Runs `write` while another connection holds the key check as a rotation does, then, once the write waits for a
 * lock, locks every sealed profile row as the rotation's next step does; returns the write's outcome and the error
 * the rotation's side met, if any.
 */
async function duringRotation<T>(write: () => Promise<T>): Promise<{ written: T | Error; rotation: Error | null }> {
  const rotation = new pg.Client({ connectionString: t.url });
  await rotation.connect();
  try {
    await rotation.query("begin");
    await rotation.query("select key_id from key_check for update");
    const written = write().catch((error: Error) => error);
    await waitFor(
      async () => {
        // Asked outside the rotation's transaction, which would keep seeing its first snapshot of pg_stat_activity.
        const waiting = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(t.db);
        return Number(waiting.rows[0]?.n) > 0;
      },
      { what: "the details write to wait for the key check" },
    );
    let failed: Error | null = null;
    try {
      await rotation.query(`select seal_ref from payout_profile where details_sealed is not null for update`);
      await rotation.query(`select seal_ref from payout_profile_change where details_sealed is not null for update`);
      await rotation.query("commit");
    } catch (error) {
      failed = error as Error;
      await rotation.query("rollback");
    }
    return { written: await written, rotation: failed };
  } finally {
    await rotation.end();
  }
}

describe("payout details during a key rotation", () => {
  it("a change waits for the rotation instead of deadlocking with it", async () => {
    await changePayoutDetails(t.db, { gameId: GAME, playerId: 701, input: bank("DE89370400440532013000") }, finance);
    const { written, rotation } = await duringRotation(() =>
      changePayoutDetails(t.db, { gameId: GAME, playerId: 701, input: bank("DE02120300000000202051") }, finance),
    );
    expect(rotation).toBeNull();
    expect(written).toMatchObject({ outcome: "pending" });
  });

  it("a review waits for the rotation instead of deadlocking with it", async () => {
    const pending = await t.db
      .selectFrom("payout_profile_change")
      .select("id")
      .where("player_id", "=", "701")
      .where("status", "=", "pending")
      .executeTakeFirstOrThrow();
    const { written, rotation } = await duringRotation(() =>
      reviewPayoutChange(t.db, { gameId: GAME, playerId: 701, changeId: pending.id, decision: "approve" }, finance2),
    );
    expect(rotation).toBeNull();
    expect(written).toMatchObject({ outcome: "approved" });
  });

  it("an import whose tax form row comes before a change of details waits for the rotation too", async () => {
    await changePayoutDetails(t.db, { gameId: GAME, playerId: 702, input: bank("DE89370400440532013000") }, finance);
    const header =
      "player_id,method,currency,paypal_email,paypal_payer_id,wise_email,wise_name,account_holder,iban,bic," +
      "bank_country,tax_form,tax_form_received_on,tax_form_expires_on";
    const file = [
      header,
      "702,,,,,,,,,,,W-9,2026-01-10,",
      "701,bank_transfer,EUR,,,,,Ada Lovelace,FR1420041010050500013M02606,BNPAFRPPXXX,FR,,,",
    ].join("\r\n");
    const { written, rotation } = await duringRotation(() =>
      importProfiles(t.db, { gameId: GAME, csv: file, dryRun: false }, finance),
    );
    expect(rotation).toBeNull();
    expect(written).toMatchObject({ applied: true, refused: [] });
    const changes = written instanceof Error ? [] : written.changes;
    expect(changes.map((c) => [c.playerId, c.kind, c.effect])).toEqual([
      [702, "tax_form", "applied"],
      [701, "details", "pending"],
    ]);
  });
});
