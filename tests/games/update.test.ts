import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { listGames } from "../../db/queries/games";
import { readGameCredentials } from "../../lib/games/games";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { runDesk } from "../support/desk";
import { actAs, formData as form } from "../support/next-request";
import { signInAs } from "../support/users";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

/**
 * A game's settings changed by an admin who cannot see its signing secrets (the page shows them masked): leaving the
 * signing secret fields empty keeps them, and a new one is set by rotating it, the one it replaces still accepted.
 */
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  actAs(await signInAs(t.db, "admin", "games-update-admin@payout-desk.test"));
});
afterAll(async () => t?.drop());

const FIELDS = {
  id: "g-update",
  name: "Updated Game",
  environment: "production",
  baseUrl: "https://service.example.test",
  secret: "gs_live_update_0001",
  webhookSecret: "",
  webhookPreviousSecret: "",
  replace: "no",
};

async function actions() {
  return import("../../app/(desk)/settings/games/actions");
}

async function lastAudit(action: string) {
  return t.db
    .selectFrom("audit_log")
    .select(["action", "detail"])
    .where("action", "=", action)
    .where("target", "=", FIELDS.id)
    .orderBy("id", "desc")
    .executeTakeFirstOrThrow();
}

describe("updating a game from Settings → Games", () => {
  it("keeps its signing secrets when the fields are left empty, and says what the game was before", async () => {
    const { saveGameAction } = await actions();
    expect(await saveGameAction(null, form({ ...FIELDS, webhookSecret: "whsec_update_first_1" }))).toMatchObject({
      ok: true,
    });
    const moved = { ...FIELDS, baseUrl: "https://moved.example.test", replace: "yes" };
    expect(await saveGameAction(null, form(moved))).toMatchObject({
      ok: true,
      message: expect.stringContaining("Its webhook signing secrets are kept."),
    });
    const credentials = await readGameCredentials(t.db, FIELDS.id);
    expect(credentials.webhookSecrets).toEqual(["whsec_update_first_1"]);
    expect(credentials.baseUrl).toBe("https://moved.example.test");
    expect((await lastAudit("game.update")).detail).toEqual({
      name: FIELDS.name,
      environment: "production",
      baseUrl: "https://moved.example.test",
      webhookSecrets: 0,
      secretChanged: false,
      webhookSecretsKept: true,
      before: { name: FIELDS.name, environment: "production", baseUrl: FIELDS.baseUrl, webhookSecrets: 1 },
    });
  });

  it("refuses a previous signing secret without a current one, on the field", async () => {
    const { saveGameAction } = await actions();
    const result = await saveGameAction(
      null,
      form({ ...FIELDS, replace: "yes", webhookPreviousSecret: "whsec_update_prev_2" }),
    );
    expect(result).toMatchObject({
      ok: false,
      fieldErrors: { webhookSecret: "is needed with a previous signing secret" },
    });
    expect((await readGameCredentials(t.db, FIELDS.id)).webhookSecrets).toEqual(["whsec_update_first_1"]);
  });

  it("rotates a signing secret: the new one current, the one it replaces accepted for 7 days", async () => {
    const { rotateWebhookSecretAction } = await actions();
    const same = await rotateWebhookSecretAction(
      null,
      form({ gameId: FIELDS.id, webhookSecret: "whsec_update_first_1" }),
    );
    expect(same).toMatchObject({
      ok: false,
      // At the top of the form, the refusal names its field; beside the field, it follows its label.
      message: "Webhook secret is the current signing secret already",
      fieldErrors: { webhookSecret: "is the current signing secret already" },
    });
    expect(
      await rotateWebhookSecretAction(null, form({ gameId: FIELDS.id, webhookSecret: "whsec_update_second_2" })),
    ).toMatchObject({ ok: true, message: "New signing secret saved; the one it replaces stays accepted for 7 days." });
    expect((await readGameCredentials(t.db, FIELDS.id)).webhookSecrets).toEqual([
      "whsec_update_second_2",
      "whsec_update_first_1",
    ]);
    const game = (await listGames(t.db)).find((g) => g.id === FIELDS.id);
    expect(game?.webhookSecretMask).toBe("whsec_••••nd_2");
    expect(JSON.stringify(await lastAudit("game.rotate_webhook_secret"))).not.toMatch(/whsec_update/);
  });

  it("from the command line: --replace keeps the signing secrets; rotate-webhook-secret rotates", async () => {
    const args = [
      "games",
      "add",
      "--id",
      FIELDS.id,
      "--name",
      "Renamed",
      "--env",
      "production",
      "--base-url",
      FIELDS.baseUrl,
      "--secret",
      FIELDS.secret,
      "--replace",
    ];
    const replaced = await runDesk(t.url, args);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect((await readGameCredentials(t.db, FIELDS.id)).webhookSecrets).toEqual([
      "whsec_update_second_2",
      "whsec_update_first_1",
    ]);
    const rotated = await runDesk(t.url, [
      "games",
      "rotate-webhook-secret",
      "--id",
      FIELDS.id,
      "--webhook-secret",
      "whsec_update_third_3",
    ]);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(JSON.parse(rotated.stdout)).toEqual({ id: FIELDS.id, rotated: true, previousAcceptedForDays: 7 });
    expect(rotated.stdout + rotated.stderr).not.toMatch(/whsec_update/);
    expect((await readGameCredentials(t.db, FIELDS.id)).webhookSecrets).toEqual([
      "whsec_update_third_3",
      "whsec_update_second_2",
    ]);
  });

  it("keeps a game's environment unless the change is asked for, on the page and the command line", async () => {
    const { saveGameAction } = await actions();
    const sandboxed = { ...FIELDS, environment: "sandbox", replace: "yes" };
    const refused = await saveGameAction(null, form(sandboxed));
    expect(refused).toMatchObject({ ok: false, fieldErrors: { environment: expect.stringContaining("production") } });
    expect((await listGames(t.db)).find((g) => g.id === FIELDS.id)?.environment).toBe("production");
    // The form has no environment chosen for the admin: left so, it is refused on the field.
    const unchosen = await saveGameAction(null, form({ ...FIELDS, environment: "", replace: "yes" }));
    expect(unchosen).toMatchObject({ ok: false, fieldErrors: { environment: "must be sandbox or production" } });

    const cli = ["games", "add", "--id", FIELDS.id, "--name", "Renamed", "--base-url", FIELDS.baseUrl];
    const bySandbox = await runDesk(t.url, [...cli, "--env", "sandbox", "--secret", FIELDS.secret, "--replace"]);
    expect(bySandbox.code).toBe(1);
    expect(bySandbox.stderr).toContain("confirm the change of environment");
    const mixed = await runDesk(t.url, [
      ...[...cli, "--env", "production", "--secret", FIELDS.secret, "--replace"],
      ...["--webhook-secret", "whsec_update_inline_4", "--webhook-secret-file", "/nonexistent"],
    ]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("--webhook-secret: cannot be mixed with --webhook-secret-file");

    const confirmed = await saveGameAction(null, form({ ...sandboxed, changeEnvironment: "on" }));
    expect(confirmed).toMatchObject({ ok: true });
    expect((await listGames(t.db)).find((g) => g.id === FIELDS.id)?.environment).toBe("sandbox");
  });
});
