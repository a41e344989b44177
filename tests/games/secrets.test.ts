import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listGames } from "../../db/queries/games";
import { createUser, setUserRole } from "../../lib/auth/users";
import { readGameCredentials, revokePreviousWebhookSecret, rotateWebhookSecret, saveGame } from "../../lib/games/games";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});
afterAll(async () => t?.drop());

const GAME = {
  id: "g-rotate",
  name: "Rotation",
  environment: "production" as const,
  baseUrl: "https://api.example.test",
  secret: "gs_live_rotation_0001",
  webhookSecrets: ["whsec_first_aaaa1111"],
};

describe("webhook signing secrets", () => {
  it("accept the previous secret during the 7-day grace after a rotation, and not after it", async () => {
    await saveGame(t.db, GAME, { replace: false, as: { actor: null, via: "cli" } });
    expect((await readGameCredentials(t.db, GAME.id)).webhookSecrets).toEqual(["whsec_first_aaaa1111"]);

    await rotateWebhookSecret(t.db, GAME.id, "whsec_second_bbbb2222", { actor: null, via: "cli" });
    expect((await readGameCredentials(t.db, GAME.id)).webhookSecrets).toEqual([
      "whsec_second_bbbb2222",
      "whsec_first_aaaa1111",
    ]);
    const [summary] = await listGames(t.db);
    expect(summary?.webhookPreviousSecretMask).toBe("whsec_••••1111");
    const days = ((summary?.webhookPreviousExpiresAt?.getTime() ?? 0) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);

    // The grace ends.
    await t.db
      .updateTable("game")
      .set({ webhook_previous_expires_at: new Date(Date.now() - 1000) })
      .where("id", "=", GAME.id)
      .execute();
    expect((await readGameCredentials(t.db, GAME.id)).webhookSecrets).toEqual(["whsec_second_bbbb2222"]);
    expect((await listGames(t.db))[0]?.webhookPreviousSecretMask).toBeNull();
  });

  it("stop accepting the previous secret at once when an admin revokes it", async () => {
    await rotateWebhookSecret(t.db, GAME.id, "whsec_third_cccc3333", { actor: null, via: "cli" });
    expect((await readGameCredentials(t.db, GAME.id)).webhookSecrets).toHaveLength(2);
    expect(await revokePreviousWebhookSecret(t.db, GAME.id, { actor: null, via: "cli" })).toEqual({ revoked: true });
    expect((await readGameCredentials(t.db, GAME.id)).webhookSecrets).toEqual(["whsec_third_cccc3333"]);
  });

  it("say nothing changed when no previous secret was accepted any more (revoked by a colleague first)", async () => {
    expect(await revokePreviousWebhookSecret(t.db, GAME.id, { actor: null, via: "cli" })).toEqual({ revoked: false });
    const lines = await t.db
      .selectFrom("audit_log")
      .select("outcome")
      .where("action", "=", "game.revoke_previous_webhook_secret")
      .orderBy("id")
      .execute();
    expect(lines.map((l) => l.outcome)).toEqual(["succeeded", "nothing_changed"]);
    expect((await readGameCredentials(t.db, GAME.id)).webhookSecrets).toEqual(["whsec_third_cccc3333"]);
  });
});

describe("roles", () => {
  it("never demote the last admin, even when two admins demote each other at once", async () => {
    const a = await createUser(
      t.db,
      { email: "a1@payout-desk.test", role: "admin", password: "a-long-password" },
      { actor: null, via: "cli" },
    );
    const b = await createUser(
      t.db,
      { email: "a2@payout-desk.test", role: "admin", password: "a-long-password" },
      { actor: null, via: "cli" },
    );
    const results = await Promise.allSettled([
      setUserRole(t.db, a.id, "viewer", { actor: null, via: "cli" }),
      setUserRole(t.db, b.id, "viewer", { actor: null, via: "cli" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const admins = await t.db.selectFrom("auth_user").select("id").where("role", "=", "admin").execute();
    expect(admins).toHaveLength(1);
  });
});

describe("two admins adding the same at once", () => {
  const CLI = { actor: null, via: "cli" } as const;

  it("add one game: the other admin is told it exists", async () => {
    const game = { ...GAME, id: "g-added-twice" };
    const outcomes = await Promise.allSettled([1, 2].map(() => saveGame(t.db, game, { replace: false, as: CLI })));
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(outcomes.find((o) => o.status === "rejected")?.reason).toMatchObject({
      code: "CONFLICT",
      message: "Game g-added-twice already exists.",
    });
  });

  it("make one user: the other admin is told the email exists", async () => {
    const person = { email: "twice@payout-desk.test", role: "support" as const };
    const outcomes = await Promise.allSettled(
      ["first-password-1", "second-password-2"].map((password) => createUser(t.db, { ...person, password }, CLI)),
    );
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(outcomes.find((o) => o.status === "rejected")?.reason).toMatchObject({
      code: "CONFLICT",
      message: "A user with email twice@payout-desk.test already exists.",
    });
    const made = await t.db.selectFrom("auth_user").select("id").where("email", "=", person.email).execute();
    expect(made).toHaveLength(1);
  });
});
