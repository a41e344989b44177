import { describe, expect, it } from "vitest";
import { camelRow, snakeRow } from "@/db/queries/camel-row";

describe("camelRow", () => {
  it("renames snake_case columns to camelCase and keeps values and order", () => {
    const at = new Date(0);
    const row = camelRow({ id: "1", send_id: "s", partner_revenue_settled_usd: "2.50", at, server_answer: null });
    expect(row).toEqual({ id: "1", sendId: "s", partnerRevenueSettledUsd: "2.50", at, serverAnswer: null });
    expect(Object.keys(row)).toEqual(["id", "sendId", "partnerRevenueSettledUsd", "at", "serverAnswer"]);
  });

  it("renames camelCase names back to snake_case columns", () => {
    const row = snakeRow({ gameId: "g", recipientPlayerId: "7", paidById: null, via: "web" });
    expect(row).toEqual({ game_id: "g", recipient_player_id: "7", paid_by_id: null, via: "web" });
    expect(camelRow(row)).toEqual({ gameId: "g", recipientPlayerId: "7", paidById: null, via: "web" });
  });
});
