import type { Hono } from "hono";
import { ApiError } from "../errors";
import { LIMITS } from "../http/rate-limits";
import { cardView, isCardExpired, playerView, usd } from "../ledger/views";
import type { AppEnv, EmulatorRuntime } from "../runtime";
import { formatInstant } from "../time";

export function registerPlayerRoutes(api: Hono<AppEnv>, runtime: EmulatorRuntime): void {
  // GET /api/player-balances/player/by-email/{email} – a player's balances; 404 for a player never seen
  api.get("/api/player-balances/player/by-email/:email", (c) => {
    const game = c.get("game");
    // Spec, Limits: "Balance reads | 1500 per minute".
    runtime.limiter.hit(
      `balance:${game.gameId}`,
      LIMITS.balanceReads,
      "RATE_LIMITED",
      "More than 1500 balance reads per minute.",
    );
    // The router hands the path parameter over already percent-decoded; decoding it again would misread a literal
    // "%" in an address (and throw on one that is not followed by two hex digits).
    const email = c.req.param("email");
    const player = runtime.ledger.playerByEmail(game.gameId, email);
    if (!player) throw new ApiError(404, "PLAYER_NOT_FOUND", "No player with this email in this game.");
    const total = player.balanceCoins;
    const available = total.minus(player.reservedCoins);
    return c.json({
      player: playerView(player),
      balances: [
        {
          currency_id: game.currencyId,
          currency_name: game.currencyName,
          available_balance: usd(available),
          reserved_balance: usd(player.reservedCoins),
          total_balance: usd(total),
        },
      ],
      summary: { total_value: usd(total), currency_count: 1, has_funds: total.gt(0) },
      last_updated: formatInstant(player.balanceUpdatedAt),
    });
  });

  // GET /api/currency-purchases/player-cards – saved cards, newest first, expired ones filtered out
  api.get("/api/currency-purchases/player-cards", (c) => {
    const game = c.get("game");
    const email = c.req.query("player_email");
    if (email === undefined || email.trim() === "")
      throw new ApiError(400, "PLAYER_EMAIL_REQUIRED", "player_email is required.");
    const ledger = runtime.ledger;
    const player = ledger.playerByEmail(game.gameId, email.trim());
    // Spec: "unknown player returns an empty list, never 404".
    if (!player) return c.json({ cards: [] });
    const cards = ledger
      .cardsOf(game.gameId, player.playerId)
      .filter((card) => !card.removed && !isCardExpired(card, ledger.now))
      .sort((a, b) => b.createdAt - a.createdAt || b.cardId - a.cardId);
    return c.json({ cards: cards.map(cardView) });
  });
}
