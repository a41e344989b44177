import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { changePayoutDetails } from "@/lib/profiles/profiles";
import type { TestDatabase } from "../support/db";
import { GAME } from "../payouts/fixtures";
import { bank, createProfilesDatabase, finance, finance2 } from "./support";

/** A change waiting for review that a new entry replaces, or the details in force entered again withdraw, is named. */

let t: TestDatabase;
let db: Db;
const IBAN = "DE89370400440532013000";
const NEXT_IBAN = "FR1420041010050500013M02606";

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  db = t.db;
});
afterAll(async () => t?.drop());

describe("a change waiting for review", () => {
  it("says which change waiting for review a new entry replaces, or the details in force withdraw", async () => {
    const player = { gameId: GAME, playerId: 503 };
    await changePayoutDetails(db, { ...player, input: bank(IBAN) }, finance);
    const waiting = await changePayoutDetails(db, { ...player, input: bank(NEXT_IBAN, "BNPAFRPPXXX", "FR") }, finance);
    expect(waiting).toMatchObject({ outcome: "pending", displaced: null });
    const paypal = { method: "paypal", currency: "USD", paypalEmail: "ada@example.com" } as const;
    const replacing = await changePayoutDetails(db, { ...player, input: paypal }, finance2);
    expect(replacing).toMatchObject({
      outcome: "pending",
      displaced: { masked: "IBAN ••••2606, BIC ••••PXXX", enteredByEmail: "fin1@payout-desk.test" },
    });
    const again = await changePayoutDetails(db, { ...player, input: bank(IBAN) }, finance);
    expect(again).toMatchObject({
      outcome: "unchanged",
      displaced: { masked: replacing.masked, enteredByEmail: "fin2@payout-desk.test" },
    });
  });
});
