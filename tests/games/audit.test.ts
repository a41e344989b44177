import { hostname, userInfo } from "node:os";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { runDesk } from "../support/desk";
import { actAs, formData as form } from "../support/next-request";
import { signInAs } from "../support/users";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

/**
 * Audit belongs to the domain: the same change made from the command line and from the web writes one audit line
 * each, with the same action and detail, told apart only by `via` (and the person, where someone signed in; the
 * command line's lines also name the system account and machine it ran from).
 */
const ranBy = `${userInfo().username}@${hostname()}`;
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});
afterAll(async () => t?.drop());

async function desk(...args: string[]): Promise<string> {
  const result = await runDesk(t.url, args);
  if (result.code !== 0) throw new Error(`desk ${args.join(" ")} exited with ${result.code}: ${result.stderr}`);
  return result.stdout;
}

async function auditOf(target: string) {
  return t.db
    .selectFrom("audit_log")
    .select(["action", "via", "actor_email", "outcome", "game_id", "detail"])
    .where("target", "=", target)
    .orderBy("id")
    .execute();
}

const GAME = {
  name: "Audited Game",
  env: "sandbox",
  baseUrl: "https://service.example.test",
  secret: "gs_test_audited_0001",
  webhookSecret: "whsec_audited_0001",
};

describe("audit lines of a change made from the command line and from the web", () => {
  it("a game added then replaced from either: one line a change, same action and detail, via cli or web", async () => {
    const cliArgs = (id: string) => [
      "games",
      "add",
      "--id",
      id,
      "--name",
      GAME.name,
      "--env",
      GAME.env,
      "--base-url",
      GAME.baseUrl,
      "--secret",
      GAME.secret,
      "--webhook-secret",
      GAME.webhookSecret,
    ];
    await desk(...cliArgs("g-cli"));
    await desk(...cliArgs("g-cli"), "--replace");

    const adminEmail = "games-admin@payout-desk.test";
    actAs(await signInAs(t.db, "admin", adminEmail));
    const { saveGameAction } = await import("../../app/(desk)/settings/games/actions");
    const webForm = (replace: "yes" | "no") =>
      form({
        id: "g-web",
        name: GAME.name,
        environment: GAME.env,
        baseUrl: GAME.baseUrl,
        secret: GAME.secret,
        webhookSecret: GAME.webhookSecret,
        webhookPreviousSecret: "",
        replace,
      });
    expect(await saveGameAction(null, webForm("no"))).toMatchObject({ ok: true });
    expect(await saveGameAction(null, webForm("yes"))).toMatchObject({ ok: true });

    const created = { name: GAME.name, environment: "sandbox", baseUrl: GAME.baseUrl, webhookSecrets: 1 };
    // A replaced game's line says what it was before, that the signing secret given replaced the stored one, and
    // whether the service secret changed (here the same secret was given again).
    const updated = { ...created, secretChanged: false, webhookSecretsKept: false, before: created };
    const line = (action: string, gameId: string, via: string, actor: string | null) => ({
      action,
      via,
      actor_email: actor,
      outcome: "succeeded",
      game_id: gameId,
      detail: { ...(action === "game.create" ? created : updated), ...(via === "cli" ? { ranBy } : {}) },
    });
    expect(await auditOf("g-cli")).toEqual([
      line("game.create", "g-cli", "cli", null),
      line("game.update", "g-cli", "cli", null),
    ]);
    expect(await auditOf("g-web")).toEqual([
      line("game.create", "g-web", "web", adminEmail),
      line("game.update", "g-web", "web", adminEmail),
    ]);
    // Neither the secret nor the signing secret reaches the audit log.
    expect(JSON.stringify(await auditOf("g-web"))).not.toMatch(/gs_test_audited|whsec_audited/);
    // Another secret saved for it: the line says the secret changed, never what it was or is.
    const swapped = webForm("yes");
    swapped.set("secret", "gs_test_audited_0002");
    expect(await saveGameAction(null, swapped)).toMatchObject({ ok: true });
    const lines = await auditOf("g-web");
    expect(lines.at(-1)?.detail).toMatchObject({ secretChanged: true });
    expect(JSON.stringify(lines)).not.toMatch(/gs_test_audited|whsec_audited/);

    // An address the service may not be reached at is refused on its field, as from the command line.
    const plainHttp = webForm("yes");
    plainHttp.set("baseUrl", "http://api.example.com");
    expect(await saveGameAction(null, plainHttp)).toMatchObject({
      ok: false,
      fieldErrors: { baseUrl: "must use https:// (http is only for a local emulator)" },
    });
  });

  it("a role changed from either: one line each, same action and detail, via cli or web", async () => {
    const email = "role-change@payout-desk.test";
    await desk("users", "add", "--email", email, "--role", "viewer", "--password", "a-long-password");
    await desk("users", "set-role", "--email", email, "--role", "support");

    const adminEmail = "users-admin@payout-desk.test";
    actAs(await signInAs(t.db, "admin", adminEmail));
    const { changeRoleAction } = await import("../../app/(desk)/settings/users/actions");
    const user = await t.db.selectFrom("auth_user").select("id").where("email", "=", email).executeTakeFirstOrThrow();
    expect(await changeRoleAction(null, form({ userId: user.id, role: "finance" }))).toMatchObject({ ok: true });
    // Set to the role it has: nothing changes, and no line is written.
    expect(await changeRoleAction(null, form({ userId: user.id, role: "finance" }))).toMatchObject({ ok: true });

    expect(await auditOf(email)).toEqual([
      {
        action: "user.create",
        via: "cli",
        actor_email: null,
        outcome: "succeeded",
        game_id: null,
        detail: { role: "viewer", ranBy },
      },
      {
        action: "user.change_role",
        via: "cli",
        actor_email: null,
        outcome: "succeeded",
        game_id: null,
        detail: { from: "viewer", role: "support", ranBy },
      },
      {
        action: "user.change_role",
        via: "web",
        actor_email: adminEmail,
        outcome: "succeeded",
        game_id: null,
        detail: { from: "support", role: "finance" },
      },
    ]);
  });
});
