import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { getPendingChange } from "@/db/queries/profile-changes";
import { changedFieldsText } from "@/lib/profiles/mask";
import { changePayoutDetails } from "@/lib/profiles/profiles";
import { payoutDetailsInputSchema } from "@/lib/profiles/schemas";
import type { TestDatabase } from "../support/db";
import { GAME } from "../payouts/fixtures";
import { bank, createProfilesDatabase, finance } from "./support";

/**
 * A change that reads like the details in force once masked (the account holder alone, an IBAN ending alike) names
 * the fields it alters, never their values, for the reviewer.
 */

let t: TestDatabase;
let db: Db;
const IBAN = "DE89370400440532013000";
const player = { gameId: GAME, playerId: 504 };

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  db = t.db;
  await changePayoutDetails(db, { ...player, input: bank(IBAN) }, finance);
});
afterAll(async () => t?.drop());

const pendingFields = async () => (await getPendingChange(db, player))?.changedFields ?? null;

describe("a change of payout details", () => {
  it("names the fields it alters when it masks as the details in force do", async () => {
    const renamed = { ...bank(IBAN), accountHolder: "Augusta Ada King" };
    const change = await changePayoutDetails(db, { ...player, input: renamed }, finance);
    expect(change).toMatchObject({ outcome: "pending", masked: "IBAN ••••3000, BIC ••••FXXX" });
    expect(await pendingFields()).toEqual(["accountHolder"]);
    expect(changedFieldsText(await pendingFields())).toBe("changes: account holder");
    // No value of them is kept unsealed.
    const row = await db.selectFrom("payout_profile_change").selectAll().where("player_id", "=", "504").execute();
    expect(JSON.stringify(row)).not.toContain("Augusta");
  });

  it("names the currency and the method too", async () => {
    const dollars = payoutDetailsInputSchema.parse({ ...bank(IBAN), currency: "USD" });
    await changePayoutDetails(db, { ...player, input: dollars }, finance);
    expect(await pendingFields()).toEqual(["currency"]);
    const paypal = { method: "paypal", currency: "EUR", paypalEmail: "ada@example.com" } as const;
    await changePayoutDetails(db, { ...player, input: paypal }, finance);
    expect(changedFieldsText(await pendingFields())).toBe(
      "changes: account holder, bank country, BIC, IBAN, method, PayPal email",
    );
  });
});
