import { describe, expect, it } from "vitest";
import { OLD_SECRET, SECRET, SECRET_SANDBOX_ONLY, SECRET_SUSPENDED, SECRET_TWO, SUB } from "./fixture";
import { expectError, type Client, setUpFixtureEmulator } from "./helpers";

let client: Client;
setUpFixtureEmulator((started) => {
  client = started;
});

describe("authentication", () => {
  it("refuses a missing key with 401 INVALID_GAME_SECRET and the full envelope", async () => {
    const call = await client.get(`/api/subscriptions/${SUB.monthly}`, { secret: null });
    const body = expectError(call, 401, "INVALID_GAME_SECRET");
    expect(body.error_id).toMatch(/^err_/);
    expect(body.timestamp).toBe("2026-06-01T00:00:00Z");
  });

  it("refuses a wrong key with 401", async () => {
    expectError(
      await client.get(`/api/subscriptions/${SUB.monthly}`, { secret: "gs_nope" }),
      401,
      "INVALID_GAME_SECRET",
    );
  });

  it("answers 403 for a game that is neither live nor testing", async () => {
    const call = await client.get(`/api/subscriptions/${SUB.monthly}`, { secret: SECRET_SUSPENDED });
    expect(call.status).toBe(403);
    expect(call.body.error_code).toBe("GAME_NOT_ACTIVE");
  });

  it("serves a testing game", async () => {
    const call = await client.get(`/api/subscriptions/${SUB.otherGame}`, { secret: SECRET_TWO });
    expect(call.status).toBe(200);
    expect(call.body.subscription.game_id).toBe("g2");
  });

  it("keeps the previous key valid for 7 days after rotation on the emulator clock", async () => {
    // Rotated 2026-05-28; the clock is 2026-06-01, so the old key still works until 2026-06-04.
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`, { secret: OLD_SECRET })).status).toBe(200);
    await client.admin("/clock/set", { at: "2026-06-03T23:59:59Z" });
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`, { secret: OLD_SECRET })).status).toBe(200);
    await client.admin("/clock/set", { at: "2026-06-04T00:00:00Z" });
    expectError(
      await client.get(`/api/subscriptions/${SUB.monthly}`, { secret: OLD_SECRET }),
      401,
      "INVALID_GAME_SECRET",
    );
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`)).status).toBe(200);
  });

  it("rotates the game secret through the admin API with a 7-day grace for the old one", async () => {
    const rotated = await client.admin("/games/g1/rotate-secret", { secret: "gs_new_one" });
    expect(rotated.body.previous_secret_valid_until).toBe("2026-06-08T00:00:00Z");
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`, { secret: "gs_new_one" })).status).toBe(200);
    expect((await client.get(`/api/subscriptions/${SUB.monthly}`, { secret: SECRET })).status).toBe(200);
    await client.admin("/clock/advance", { by: "7d" });
    expectError(await client.get(`/api/subscriptions/${SUB.monthly}`, { secret: SECRET }), 401, "INVALID_GAME_SECRET");
  });

  it("answers ids of another game with 404", async () => {
    expectError(await client.get(`/api/subscriptions/${SUB.otherGame}`), 404, "SUBSCRIPTION_NOT_FOUND");
    expectError(
      await client.post(`/api/subscriptions/${SUB.otherGame}/refund`, { client_request_id: "x-1" }),
      404,
      "SUBSCRIPTION_NOT_FOUND",
    );
    expectError(
      await client.get(`/api/subscriptions/reporting/subscriptions/${SUB.otherGame}/attribution`),
      404,
      "SUBSCRIPTION_NOT_FOUND",
    );
  });
});

describe("sandbox prefix", () => {
  it("serves every route under /sandbox as at /", async () => {
    const root = await client.get(`/api/subscriptions/${SUB.monthly}`);
    const sandbox = await client.get(`/sandbox/api/subscriptions/${SUB.monthly}`);
    expect(sandbox.status).toBe(200);
    expect(sandbox.body).toEqual(root.body);
    const report = await client.get("/sandbox/api/subscriptions/reporting/attribution", {
      query: { start: "2026-05-01", end: "2026-06-01" },
    });
    expect(report.status).toBe(200);
    const balance = await client.get("/sandbox/api/player-balances/player/by-email/alice%40example.test");
    expect(balance.status).toBe(200);
  });

  it("accepts a sandbox-only key under /sandbox and refuses it at /", async () => {
    const sandbox = await client.get("/sandbox/api/subscriptions/player", {
      secret: SECRET_SANDBOX_ONLY,
      query: { player_email: "x@example.test" },
    });
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.subscriptions).toEqual([]);
    expectError(
      await client.get("/api/subscriptions/player", {
        secret: SECRET_SANDBOX_ONLY,
        query: { player_email: "x@example.test" },
      }),
      401,
      "INVALID_GAME_SECRET",
    );
  });

  it("answers an unknown route with a 404 envelope given a valid key, and 401 without one", async () => {
    expectError(await client.get("/api/nothing-here"), 404, "NOT_FOUND");
    expectError(await client.get("/sandbox/api/checkout/sessions"), 404, "NOT_FOUND");
    expectError(await client.get("/api/nothing-here", { secret: null }), 401, "INVALID_GAME_SECRET");
    expectError(await client.post("/api/checkout/sessions", {}, { secret: "gs_nope" }), 401, "INVALID_GAME_SECRET");
  });
});
