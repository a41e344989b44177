import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPaymentFiles } from "@/lib/payments/files";
import { changePayoutDetails } from "@/lib/profiles/profiles";
import { type PayoutDetails, payoutDetailsInputSchema } from "@/lib/profiles/schemas";
import { sealDetails } from "@/lib/profiles/seal";
import { createProfilesDatabase } from "../profiles/support";
import { GAME, web } from "../payouts/fixtures";
import type { TestDatabase } from "../support/db";
import { approvedBatch, finance, preparer } from "./support";

/** A file the format cannot hold says whose details stop it, so that finance knows which profile to mend. */

let t: TestDatabase;

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
});
afterAll(async () => t?.drop());

describe("a payment file that cannot be written", () => {
  it("names the recipient whose details stop it", async () => {
    const details = payoutDetailsInputSchema.parse({
      method: "bank_transfer",
      currency: "EUR",
      accountHolder: "Li Xiaolong",
      iban: "DE89370400440532013000",
      bic: "COBADEFFXXX",
      bankCountry: "DE",
    });
    await changePayoutDetails(t.db, { gameId: GAME, playerId: 7, input: details }, finance);
    // Details kept from before the euro transfer's name rule: the holder's name in Chinese characters alone.
    const profile = await t.db
      .selectFrom("payout_profile")
      .select("seal_ref")
      .where("player_id", "=", "7")
      .executeTakeFirstOrThrow();
    const { currency: _, ...stored } = { ...details, accountHolder: "李小龍" };
    await t.db
      .updateTable("payout_profile")
      .set({ details_sealed: await sealDetails(t.db, stored as PayoutDetails, profile.seal_ref) })
      .where("player_id", "=", "7")
      .execute();
    const batchId = await approvedBatch(t.db, "2026-04", { 7: "30.00" });
    await expect(
      createPaymentFiles(
        t.db,
        { gameId: GAME, batchId, method: "sepa", eurRate: "0.92", rateSource: "ECB", executionDate: "2026-05-04" },
        web(preparer),
      ),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: "The file cannot be written: recipient 7: account holder has no letters of the SEPA character set.",
    });
  });
});
