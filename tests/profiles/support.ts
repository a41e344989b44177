import { saveGame } from "@/lib/games/games";
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
