import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { up as keepOverridesGivenAfterWithdrawal } from "@/db/migrations/2026_12_14_0900_tax_form_withdrawn_cause";
import { preparePayoutBatch } from "@/lib/payouts/batches";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { openFlagsOf, readBatchFlags } from "@/lib/payouts/flags";
import { savePayoutSettings } from "@/lib/payouts/settings";
import { changePayoutDetails, type ProfileActing, setTaxForm } from "@/lib/profiles/profiles";
import { payoutDetailsInputSchema } from "@/lib/profiles/schemas";
import { saveProfileSettings } from "@/lib/profiles/settings";
import { monthWindow } from "@/lib/time";
import type { TestDatabase } from "../support/db";
import { createProfilesDatabase } from "./support";
import { actor, GAME, insertSnapshot, web } from "../payouts/fixtures";

/**
 * `tax_form_missing` names, for a recipient whose form was recorded and then withdrawn, the change that withdrew it:
 * an override of "none on file" given on a promise of the form does not outlive the form turning out invalid.
 */

let t: TestDatabase;
let db: Db;
const preparer = actor("preparer");
const admin = actor("admin");
const fin: ProfileActing = { actor: { id: "t-fin-1", email: "tfin1@payout-desk.test" }, role: "finance", via: "web" };
const W9 = { taxForm: "W-9" as const, taxFormReceivedOn: "2026-11-20", taxFormExpiresOn: undefined };
const NONE = { taxForm: "none" as const, taxFormReceivedOn: undefined, taxFormExpiresOn: undefined };

async function prepared(month: string, playerId: number) {
  const input = payoutDetailsInputSchema.parse({
    method: "paypal",
    currency: "USD",
    paypalEmail: `r${playerId}@x.test`,
  });
  await changePayoutDetails(db, { gameId: GAME, playerId, input }, fin);
  const snapshot = await insertSnapshot(db, { window: month, recipients: [{ id: playerId, gross: "40.00" }] });
  const { batchId } = await preparePayoutBatch(db, { gameId: GAME, window: monthWindow(month) }, web(preparer));
  const target = { gameId: GAME, batchId, snapshotId: snapshot.id };
  const open = async () =>
    openFlagsOf(await readBatchFlags(db, target), playerId, []).map((f) => [f.flag, f.cause] as const);
  const flag = { gameId: GAME, batchId, flag: "tax_form_missing", recipientPlayerId: playerId };
  return { open, flag };
}

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  db = t.db;
  await savePayoutSettings(db, { twoPersonRule: true, minPayoutUsd: "10.00" }, { actor: admin, via: "web" });
  await saveProfileSettings(db, { requireTaxForm: true }, { actor: admin, via: "web" });
});
afterAll(async () => t?.drop());

describe("an override of no tax form on file", () => {
  it("does not hold once a form recorded since is withdrawn", async () => {
    const { open, flag } = await prepared("2026-11", 8201);
    expect(await open()).toEqual([["tax_form_missing", "tax_form:none"]]);
    await overrideFlag(db, { ...flag, reason: "W-9 promised by email" }, web(preparer));
    expect(await open()).toEqual([]);
    await setTaxForm(db, { gameId: GAME, playerId: 8201, input: W9 }, fin);
    expect(await open()).toEqual([]);
    // The form turns out invalid and is withdrawn: the promise the override took on trust is broken, flagged again.
    await setTaxForm(db, { gameId: GAME, playerId: 8201, input: NONE }, fin);
    expect(await open()).toEqual([["tax_form_missing", expect.stringMatching(/^tax_form:none:[0-9a-f-]{36}$/)]]);
  });

  it("given after the withdrawal under the former cause, is kept by the upgrade; one given before is not", async () => {
    const after = await prepared("2026-12", 8202);
    const before = await prepared("2027-01", 8203);
    // 8203's override was given before its form was recorded; both forms are then withdrawn.
    await overrideFlag(db, { ...before.flag, reason: "W-9 promised by post" }, web(preparer));
    for (const playerId of [8202, 8203]) {
      await setTaxForm(db, { gameId: GAME, playerId, input: W9 }, fin);
      await setTaxForm(db, { gameId: GAME, playerId, input: NONE }, fin);
    }
    // 8202's, after the withdrawal, as an instance before the upgrade wrote it (the cause it showed then).
    await overrideFlag(db, { ...after.flag, reason: "Exempt: confirmed with the tax adviser" }, web(preparer));
    await sql`update payout_flag_override set cause = 'tax_form:none'
      where recipient_player_id in (8202, 8203) and flag = 'tax_form_missing'`.execute(db);
    expect(await after.open()).toHaveLength(1);
    await keepOverridesGivenAfterWithdrawal(db);
    expect(await after.open()).toEqual([]);
    expect(await before.open()).toEqual([["tax_form_missing", expect.stringMatching(/^tax_form:none:/)]]);
  });
});
