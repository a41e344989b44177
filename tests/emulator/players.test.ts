import { describe, expect, it } from "vitest";
import { fixtureScenario, SECRET_TWO } from "./fixture";
import { expectError, type Client, setUpFixtureEmulator } from "./helpers";

let client: Client;
setUpFixtureEmulator((started) => {
  client = started;
});

describe("GET /api/player-balances/player/by-email/{email}", () => {
  it("returns the player, balances, summary and last_updated", async () => {
    const call = await client.get("/api/player-balances/player/by-email/alice%40example.test");
    expect(call.status).toBe(200);
    expect(call.body).toEqual({
      player: {
        player_id: 1,
        player_name: "Alice",
        player_email: "alice@example.test",
        identity_id: "idn_1",
        date_joined: "2025-12-01T00:00:00Z",
      },
      balances: [
        {
          currency_id: 1,
          currency_name: "Coins",
          available_balance: "100.00",
          reserved_balance: "0.00",
          total_balance: "100.00",
        },
      ],
      summary: { total_value: "100.00", currency_count: 1, has_funds: true },
      last_updated: "2026-06-01T00:00:00Z",
    });
  });

  it("answers 404 for a player never seen, and for another game's player", async () => {
    expectError(
      await client.get("/api/player-balances/player/by-email/nobody%40example.test"),
      404,
      "PLAYER_NOT_FOUND",
    );
    expectError(await client.get("/api/player-balances/player/by-email/zed%40example.test"), 404, "PLAYER_NOT_FOUND");
    expect(
      (await client.get("/api/player-balances/player/by-email/zed%40example.test", { secret: SECRET_TWO })).status,
    ).toBe(200);
  });

  it("reads the email from the path once: a literal % is part of the address", async () => {
    // "a%25zz" in the path is the address "a%zz@example.test": unknown here, so 404 (never a 500 from decoding twice).
    expectError(await client.get("/api/player-balances/player/by-email/a%25zz@example.test"), 404, "PLAYER_NOT_FOUND");
    expectError(await client.get("/api/player-balances/player/by-email/100%25@example.test"), 404, "PLAYER_NOT_FOUND");
    const scenario = fixtureScenario();
    scenario.players!.push({
      game_id: "g1",
      player_id: 5,
      email: "a%zz@example.test",
      date_joined: "2026-01-01T00:00:00Z",
      balance_coins: "7.00",
    });
    scenario.players!.push({
      game_id: "g1",
      player_id: 6,
      email: "a%41@example.test",
      date_joined: "2026-01-01T00:00:00Z",
    });
    expect((await client.admin("/scenario", scenario)).status).toBe(200);
    const found = await client.get(`/api/player-balances/player/by-email/${encodeURIComponent("a%zz@example.test")}`);
    expect(found.status).toBe(200);
    expect(found.body.player).toMatchObject({ player_id: 5, player_email: "a%zz@example.test" });
    expect(found.body.balances[0].total_balance).toBe("7.00");
    // "a%2541" is "a%41", not "aA".
    expect((await client.get("/api/player-balances/player/by-email/a%2541%40example.test")).body.player.player_id).toBe(
      6,
    );
  });

  it("shows a balance with no funds", async () => {
    const call = await client.get("/api/player-balances/player/by-email/BOB%40example.test");
    expect(call.body.summary).toEqual({ total_value: "0.00", currency_count: 1, has_funds: false });
  });
});

describe("GET /api/currency-purchases/player-cards", () => {
  it("lists saved cards newest first without expired ones and without processor ids", async () => {
    const call = await client.get("/api/currency-purchases/player-cards", {
      query: { player_email: "alice@example.test" },
    });
    expect(call.status).toBe(200);
    expect(call.body.cards).toEqual([
      {
        id: 13,
        last_four: "1881",
        brand: "mastercard",
        exp_month: 3,
        exp_year: 2029,
        created_at: "2026-02-01T00:00:00Z",
      },
      { id: 11, last_four: "4242", brand: "visa", exp_month: 12, exp_year: 2030, created_at: "2026-01-01T00:00:00Z" },
    ]);
  });

  it("filters a card once its expiry month has passed on the emulator clock", async () => {
    await client.admin("/clock/set", { at: "2029-03-31T23:59:59Z" });
    expect(
      (
        await client.get("/api/currency-purchases/player-cards", { query: { player_email: "alice@example.test" } })
      ).body.cards.map((c: any) => c.id),
    ).toEqual([13, 11]);
    await client.admin("/clock/set", { at: "2029-04-01T00:00:00Z" });
    expect(
      (
        await client.get("/api/currency-purchases/player-cards", { query: { player_email: "alice@example.test" } })
      ).body.cards.map((c: any) => c.id),
    ).toEqual([11]);
  });

  it("returns an empty list for an unknown player, never 404", async () => {
    const call = await client.get("/api/currency-purchases/player-cards", {
      query: { player_email: "nobody@example.test" },
    });
    expect(call.status).toBe(200);
    expect(call.body).toEqual({ cards: [] });
  });

  it("requires player_email", async () => {
    expectError(await client.get("/api/currency-purchases/player-cards"), 400, "PLAYER_EMAIL_REQUIRED");
  });
});
