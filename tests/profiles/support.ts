import { saveGame } from "@/lib/games/games";
import type { ProfileActing } from "@/lib/profiles/profiles";
import { payoutDetailsInputSchema } from "@/lib/profiles/schemas";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

/**
 * A fresh database with one game whose secret is really sealed (a key rotation opens every sealed column, and the key
 * check is recorded from this process's key), the environment pointed at it.
 */
export async function createProfilesDatabase(gameId: string): Promise<TestDatabase> {
  const t = await createTestDatabase();
  applyTestEnv(t);
  await saveGame(
    t.db,
    {
      id: gameId,
      name: `Game ${gameId}`,
      environment: "sandbox",
      baseUrl: "http://127.0.0.1:9",
      secret: `gs_test_${gameId}_secret`,
      webhookSecrets: [],
    },
    { replace: false, as: { actor: null, via: "cli" } },
  );
  return t;
}

/** Two finance users: one enters a change of details, the other reviews it. */
export const finance: ProfileActing = {
  actor: { id: "u-fin-1", email: "fin1@payout-desk.test" },
  role: "finance",
  via: "web",
};
export const finance2: ProfileActing = {
  actor: { id: "u-fin-2", email: "fin2@payout-desk.test" },
  role: "finance",
  via: "web",
};

/** Euro bank details of Ada Lovelace, as the profile form takes them. */
export const bank = (iban: string, bic = "COBADEFFXXX", country = "DE") =>
  payoutDetailsInputSchema.parse({
    method: "bank_transfer",
    currency: "eur",
    accountHolder: "Ada Lovelace",
    iban,
    bic,
    bankCountry: country,
  });
