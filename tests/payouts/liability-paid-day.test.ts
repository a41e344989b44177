import { sql } from "kysely";
import { expect, it } from "vitest";
import type { Db } from "@/db";
import { listLiability } from "@/lib/payouts/liability";
import { payWindow, setUpPayoutsDatabase } from "../support/payouts";
import { GAME, insertSnapshot } from "./fixtures";

/**
 * A payment may be dated the day before the UTC day of the event it follows, as the desk takes it from a person whose
 * day is behind UTC's (a file made in California on 5 October at 17:30, 00:30 UTC on the 6th, paid that evening): the
 * liability counts it from that day, as the ledger files date it, not from when its results were imported.
 */

let db: Db;
const endOfDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000);

setUpPayoutsDatabase((t) => {
  db = t.db;
});

it("counts a payment dated the day before the event it follows from that day", async () => {
  await insertSnapshot(db, { window: "2026-09", recipients: [{ id: 1, gross: "100.00" }] });
  await payWindow(db, "2026-09", { paid: { on: "2026-10-05", method: "wise", reference: "WISE-SEP" } });
  // Prepared and approved on 6 October at 00:20 and 00:30 UTC (5 October in California), its results imported on the
  // 9th. The product never updates either (a trigger refuses it for events): written back here, the trigger off.
  await db.transaction().execute(async (trx) => {
    await sql`update payout_batch set prepared_at = '2026-10-06T00:20:00Z'`.execute(trx);
    await sql`alter table payout_statement_event disable trigger payout_statement_event_no_update`.execute(trx);
    await sql`update payout_statement_event
      set at = case when state_after = 'paid' then '2026-10-09T15:00:00Z'::timestamptz
        else '2026-10-06T00:30:00Z'::timestamptz end`.execute(trx);
    await sql`alter table payout_statement_event enable trigger payout_statement_event_no_update`.execute(trx);
  });
  const owed = async (day: string) => (await listLiability(db, { gameId: GAME, asOf: endOfDay(day) })).rows;
  // Paid on the 5th: nothing is owed at the end of the 6th, nor on the days before its results were imported.
  for (const day of ["2026-10-06", "2026-10-07", "2026-10-08", "2026-10-09"]) expect(await owed(day)).toEqual([]);
  // Still owed on the 5th: the batch was not prepared before the end of that day (it was 00:20 UTC on the 6th).
  expect((await owed("2026-10-05")).map((r) => [r.recipientPlayerId, r.totalOwedUsd])).toEqual([[1, "100.00"]]);
});
