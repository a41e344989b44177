import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { sealSecret } from "@/lib/crypto";
import { sealingKey } from "@/lib/keys/check";
import { payoutDetailsContext } from "@/lib/keys/sealed-columns";
import { changePayoutDetails, type ProfileActing } from "@/lib/profiles/profiles";
import type { TestDatabase } from "../support/db";
import { createProfilesDatabase } from "./support";

/** Payout emails are kept in lower case; details kept as typed before that are the same details in any case. */
const GAME = "email-case-game";
const finance: ProfileActing = {
  actor: { id: "ec-fin-1", email: "ecfin1@payout-desk.test" },
  role: "finance",
  via: "cli",
};
let t: TestDatabase;
let db: Db;

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  db = t.db;
});
afterAll(async () => t?.drop());

describe("a payout email kept as typed by an earlier release", () => {
  it("is the same details as the address typed again in lower case: nothing to review", async () => {
    // As the forms, the import and the command line give it: parsed, so in lower case.
    const input = { method: "wise" as const, currency: "EUR", wiseEmail: "kim@example.org", wiseName: "Kim" };
    const first = await changePayoutDetails(db, { gameId: GAME, playerId: 599, input }, finance);
    expect(first).toMatchObject({ outcome: "applied", masked: "Wise k•••@example.org" });
    // As an earlier release kept it: the address as typed, capitals and all.
    const profile = await db
      .selectFrom("payout_profile")
      .select("seal_ref")
      .where("game_id", "=", GAME)
      .where("player_id", "=", "599")
      .executeTakeFirstOrThrow();
    const typed = { method: "wise", wiseEmail: "Kim@Example.org", wiseName: "Kim" };
    const key = await db.transaction().execute((trx) => sealingKey(trx));
    const sealed = sealSecret(JSON.stringify(typed), payoutDetailsContext(profile.seal_ref), key);
    await db
      .updateTable("payout_profile")
      .set({ details_sealed: sealed })
      .where("seal_ref", "=", profile.seal_ref)
      .execute();
    const again = await changePayoutDetails(db, { gameId: GAME, playerId: 599, input }, finance);
    expect(again.outcome).toBe("unchanged");
  });
});
