import { randomBytes } from "node:crypto";
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { stopBoss } from "../../lib/jobs/queue";
import { revokePreviousWebhookSecret, rotateWebhookSecret } from "../../lib/games/games";
import * as receiveModule from "../../lib/webhooks/receive";
import { MISMATCH_RECHECK_MS } from "../../lib/webhooks/signing-secrets";
import {
  flushWebhookRefusals,
  REFUSAL_FLUSH_INTERVAL_MS,
  whenRefusalsFlushed,
} from "../../lib/webhooks/refusal-counts";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import {
  addGame,
  countsOf,
  CURRENT_SECRET,
  deliver,
  deliveryRequest,
  envelope,
  PREVIOUS_SECRET,
  type RouteHandler,
} from "./support";

/** Counts secret openings: a forged delivery must not cost a decryption. */
const opened = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../lib/crypto", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../lib/crypto")>();
  return {
    ...original,
    openSecret: (...args: Parameters<typeof original.openSecret>) => {
      opened.count += 1;
      return original.openSecret(...args);
    },
  };
});
vi.mock("next/headers", () => import("../support/next-request"));

let t: TestDatabase;
let POST: RouteHandler;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, "known");
  await addGame(t.db, "unsigned-game", []);
  ({ POST } = (await import("../../app/api/webhooks/service/[gameId]/route")) as unknown as { POST: RouteHandler });
});

afterAll(async () => {
  await stopBoss();
  await t?.drop();
});

/** Flushes the refusal counters kept in memory (the interval and shutdown do the same). */
const flush = () => flushWebhookRefusals();

/** Counts the statements that write (insert, update, delete) through one Db. */
class WriteCounter implements KyselyPlugin {
  writes = 0;
  transformQuery(args: PluginTransformQueryArgs) {
    if (["InsertQueryNode", "UpdateQueryNode", "DeleteQueryNode"].includes(args.node.kind)) this.writes += 1;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    return args.result;
  }
}

const forged = (_gameId: string) => `t=${Math.floor(Date.now() / 1000)},v1=${randomBytes(32).toString("hex")}`;

describe("probing the webhook endpoint", () => {
  it("answers an unsigned delivery the same for a known game and an unknown one", async () => {
    for (const idempotencyKey of [null, "idem_probe_1"]) {
      const known = await deliver(POST, {
        gameId: "known",
        body: envelope({ gameId: "known" }),
        signature: null,
        idempotencyKey,
      });
      const unknown = await deliver(POST, {
        gameId: "nope",
        body: envelope({ gameId: "nope" }),
        signature: null,
        idempotencyKey,
      });
      expect(known.status).toBe(400);
      expect(unknown).toEqual(known);
    }
  });

  it("answers an oversized delivery the same for a known game and an unknown one", async () => {
    const body = envelope({ gameId: "known", data: { padding: "x".repeat(1_100_000) } });
    const known = await deliver(POST, { gameId: "known", body, signature: null });
    const unknown = await deliver(POST, { gameId: "nope", body, signature: null });
    expect(known.status).toBe(413);
    expect(unknown).toEqual(known);
  });

  it(
    "answers a forged signature the same for a known game, " + "an unknown one and one without a signing secret",
    async () => {
      const answers = [];
      for (const gameId of ["known", "nope", "unsigned-game"]) {
        answers.push(await deliver(POST, { gameId, body: envelope({ gameId }), signature: forged(gameId) }));
      }
      expect(answers[0]).toMatchObject({ status: 401, body: { error: { code: "signature_mismatch" } } });
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
    },
  );

  it("writes nothing to the database and opens no secret per forged or unsigned delivery", async () => {
    await deliver(POST, { gameId: "known", body: envelope({ gameId: "known" }) }); // warms the game's secrets
    const counter = new WriteCounter();
    const db = t.db.withPlugin(counter);
    const openedBefore = opened.count;
    for (let i = 0; i < 40; i++) {
      const gameId = i % 2 === 0 ? "known" : `made-up-${i}`;
      const signature = i % 4 < 2 ? forged(gameId) : null;
      const response = await receiveModule.receiveWebhook(
        deliveryRequest({ gameId, body: envelope({ gameId }), signature }),
        gameId,
        { db },
      );
      expect([400, 401]).toContain(response.status);
    }
    expect(counter.writes).toBe(0);
    expect(opened.count - openedBefore).toBe(0);
  });

  it("keeps a game's opened secrets through a flood of deliveries under made-up game ids", async () => {
    await deliver(POST, { gameId: "known", body: envelope({ gameId: "known" }) }); // warms the game's secrets
    const openedBefore = opened.count;
    for (let i = 0; i < 1_200; i++) {
      const gameId = `flood-${i}`;
      const response = await receiveModule.receiveWebhook(
        deliveryRequest({ gameId, body: envelope({ gameId }), signature: forged(gameId) }),
        gameId,
        { db: t.db },
      );
      expect(response.status).toBe(401);
    }
    const after = await deliver(POST, { gameId: "known", body: envelope({ gameId: "known" }), signature: forged("x") });
    expect(after.status).toBe(401);
    expect(opened.count - openedBefore).toBe(0);
  });

  it("counts refusals in memory and writes them in one go, unknown games under no game", async () => {
    await addGame(t.db, "counted");
    await flush();
    for (let i = 0; i < 5; i++)
      await deliver(POST, { gameId: "counted", body: envelope({ gameId: "counted" }), signature: forged("counted") });
    for (let i = 0; i < 3; i++)
      await deliver(POST, { gameId: "counted", body: envelope({ gameId: "counted" }), signature: null });
    for (let i = 0; i < 300; i++) await deliver(POST, { gameId: `ghost-${i}`, body: "{}", signature: forged("ghost") });
    expect(await countsOf(t.db, "counted")).toEqual({});
    await flush();
    expect(await countsOf(t.db, "counted")).toEqual({
      "refused:signature_mismatch": 5,
      "refused:signature_missing": 3,
    });
    expect((await countsOf(t.db, ""))["refused:unknown_game"]).toBeGreaterThanOrEqual(300);
    const ghosts = await t.db
      .selectFrom("webhook_delivery_count")
      .select("game_id")
      .where("game_id", "like", "ghost-%")
      .execute();
    expect(ghosts).toEqual([]);
  });

  it("flushes the counters on an interval", async () => {
    // Nothing pending, no timer: the next refusal starts one on the fake clock.
    await flush();
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      await addGame(t.db, "ticking");
      await deliver(POST, { gameId: "ticking", body: envelope({ gameId: "ticking" }), signature: forged("ticking") });
      expect(await countsOf(t.db, "ticking")).toEqual({});
      await vi.advanceTimersByTimeAsync(REFUSAL_FLUSH_INTERVAL_MS);
      await whenRefusalsFlushed();
      expect(await countsOf(t.db, "ticking")).toEqual({ "refused:signature_mismatch": 1 });
    } finally {
      vi.useRealTimers();
    }
  });

  it(
    "verifies with a new signing secret as soon as it is " + "rotated, and stops the previous one when revoked",
    async () => {
      await addGame(t.db, "rotating", [CURRENT_SECRET]);
      expect(
        await deliver(POST, { gameId: "rotating", body: envelope({ gameId: "rotating" }), secrets: [CURRENT_SECRET] }),
      ).toMatchObject({ status: 200 });
      await rotateWebhookSecret(t.db, "rotating", "whsec_rotated_new_1", { actor: null, via: "cli" });
      expect(
        await deliver(POST, {
          gameId: "rotating",
          body: envelope({ gameId: "rotating" }),
          secrets: ["whsec_rotated_new_1"],
        }),
      ).toMatchObject({ status: 200 });
      expect(
        await deliver(POST, { gameId: "rotating", body: envelope({ gameId: "rotating" }), secrets: [CURRENT_SECRET] }),
      ).toMatchObject({ status: 200 });
      await revokePreviousWebhookSecret(t.db, "rotating", { actor: null, via: "cli" });
      expect(
        await deliver(POST, { gameId: "rotating", body: envelope({ gameId: "rotating" }), secrets: [CURRENT_SECRET] }),
      ).toMatchObject({ status: 401 });
      await addGame(t.db, "rotating", [PREVIOUS_SECRET]);
      expect(
        await deliver(POST, { gameId: "rotating", body: envelope({ gameId: "rotating" }), secrets: [PREVIOUS_SECRET] }),
      ).toMatchObject({ status: 200 });
    },
  );

  it("verifies at once a secret rotated by another server, though this one still keeps the one before", async () => {
    const sealedColumns = () =>
      t.db
        .selectFrom("game")
        .select(["webhook_secret_sealed", "webhook_previous_secret_sealed", "webhook_previous_expires_at"])
        .where("id", "=", "rotated-elsewhere")
        .executeTakeFirstOrThrow();
    await addGame(t.db, "rotated-elsewhere", ["whsec_elsewhere_rotated_2"]);
    const rotated = await sealedColumns();
    await addGame(t.db, "rotated-elsewhere", [CURRENT_SECRET]);
    const receive = (secret: string, nowMs = Date.now()) =>
      receiveModule.receiveWebhook(
        deliveryRequest({
          gameId: "rotated-elsewhere",
          body: envelope({ gameId: "rotated-elsewhere" }),
          secrets: [secret],
        }),
        "rotated-elsewhere",
        { db: t.db, nowMs },
      );
    // This server keeps the secret in memory after a delivery signed with it.
    expect((await receive(CURRENT_SECRET)).status).toBe(200);
    // Another process puts a new secret in place: only the database changes, nothing here is told.
    await t.db.updateTable("game").set(rotated).where("id", "=", "rotated-elsewhere").execute();
    // A second after the secrets were read (the most a flood of forged deliveries makes it ask), the database is asked.
    expect((await receive("whsec_elsewhere_rotated_2", Date.now() + MISMATCH_RECHECK_MS + 100)).status).toBe(200);
    expect((await receive(CURRENT_SECRET)).status).toBe(401);
  });

  it("verifies at once a delivery for a game another server added, though this one kept it as no game", async () => {
    // Made (its secret sealed for its id), then put aside under another id until another process "adds" it.
    await addGame(t.db, "added-elsewhere", ["whsec_added_elsewhere_1"]);
    const moveGame = (from: string, to: string) =>
      t.db.updateTable("game").set({ id: to }).where("id", "=", from).execute();
    await moveGame("added-elsewhere", "added-elsewhere-aside");
    const receive = (nowMs = Date.now()) =>
      receiveModule.receiveWebhook(
        deliveryRequest({
          gameId: "added-elsewhere",
          body: envelope({ gameId: "added-elsewhere" }),
          secrets: ["whsec_added_elsewhere_1"],
        }),
        "added-elsewhere",
        { db: t.db, nowMs },
      );
    // Kept here as no game; then another process adds it: only the database changes.
    expect((await receive()).status).toBe(401);
    await moveGame("added-elsewhere-aside", "added-elsewhere");
    expect((await receive(Date.now() + MISMATCH_RECHECK_MS + 100)).status).toBe(200);
  });

  it("stops a secret revoked by another server or the CLI at once, though this one still keeps it", async () => {
    await addGame(t.db, "elsewhere", [CURRENT_SECRET]);
    await rotateWebhookSecret(t.db, "elsewhere", "whsec_elsewhere_new_1", { actor: null, via: "cli" });
    const signedWith = (secret: string) =>
      deliver(POST, { gameId: "elsewhere", body: envelope({ gameId: "elsewhere" }), secrets: [secret] });
    // This server keeps both secrets in memory after a delivery signed with the previous one.
    expect(await signedWith(CURRENT_SECRET)).toMatchObject({ status: 200 });
    // Another process revokes the previous secret: only the database changes, nothing here is told.
    await t.db
      .updateTable("game")
      .set({ webhook_previous_secret_sealed: null, webhook_previous_expires_at: null })
      .where("id", "=", "elsewhere")
      .execute();
    expect(await signedWith(CURRENT_SECRET)).toMatchObject({ status: 401 });
    expect(await signedWith("whsec_elsewhere_new_1")).toMatchObject({ status: 200 });
  });
});
