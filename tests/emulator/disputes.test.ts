import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureScenario, SECRET, SUB } from "./fixture";
import { startClient, type Client } from "./helpers";

/** Chargebacks from the admin API: the spec's purchase.disputed event on open and on close, "debit on lost". */

let client: Client;
let receiver: http.Server;
const received: { event_type: string; data: Record<string, unknown> }[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as (typeof received)[number]);
      res.writeHead(200).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  client = await startClient({ scenario: fixtureScenario(), rateLimits: "off", webhookUrl: url }, SECRET);
});
afterAll(async () => {
  await client?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe("disputes", () => {
  it(
    "opens a dispute on a card-charged renewal, holds the " + "amount, and closes it lost with the coins taken back",
    async () => {
      const opened = await client.admin("/disputes", {
        subscription_id: SUB.monthly,
        period_seq: 5,
        reason: "fraudulent",
      });
      expect(opened.status).toBe(201);
      expect(opened.body).toMatchObject({
        dispute_status: "open",
        usd_amount: "10.00",
        reason: "fraudulent",
        opened_at: "2026-06-01T00:00:00Z",
        closed_at: null,
      });
      expect(opened.body.order_id).toMatch(/^ord_/);
      const periodId = opened.body.period_id as number;
      const detail = await client.get(`/api/subscriptions/reporting/periods/${periodId}`);
      expect(detail.body.fee_legs.disputed_amount_held_usd).toBe("10.00");
      expect(detail.body.period.mint_order_id).toBe(opened.body.order_id);

      const again = await client.admin("/disputes", { period_id: periodId });
      expect(again.status).toBe(409);
      expect(again.body.error_code).toBe("ADMIN_CONFLICT");

      const lost = await client.admin(`/disputes/${opened.body.dispute_id as string}/close`, {
        dispute_status: "lost",
      });
      expect(lost.body).toMatchObject({ dispute_status: "lost", currency_debited: "100.00", new_balance: "0.00" });
      expect(
        (await client.get(`/api/subscriptions/reporting/periods/${periodId}`)).body.fee_legs.disputed_amount_held_usd,
      ).toBe("0.00");
      expect(
        (await client.get("/api/player-balances/player/by-email/alice%40example.test")).body.balances[0]
          .available_balance,
      ).toBe("0.00");
      const closedTwice = await client.admin(`/disputes/${opened.body.dispute_id as string}/close`, {
        dispute_status: "won",
      });
      expect(closedTwice.status).toBe(409);

      await client.emulator.runtime.dispatcher.idle();
      const events = received.filter((e) => e.event_type === "purchase.disputed");
      expect(events.map((e) => Object.keys(e.data).sort())).toEqual([
        ["charge_id", "dispute_id", "order_id", "payment_intent_id", "reason", "transaction_id", "usd_amount"],
        ["currency_debited", "dispute_id", "dispute_status", "new_balance", "order_id"],
      ]);
      expect(events[1]?.data).toMatchObject({
        order_id: opened.body.order_id,
        dispute_id: opened.body.dispute_id,
        dispute_status: "lost",
      });
      expect((await client.admin("/disputes")).body.disputes).toHaveLength(1);
    },
  );

  it("refuses periods without a card charge, amounts above it, and unknown disputes", async () => {
    const wallet = await client.admin("/disputes", { subscription_id: SUB.wallet, period_seq: 1 });
    expect(wallet.status).toBe(409);
    const tooMuch = await client.admin("/disputes", {
      subscription_id: SUB.ninetyNine,
      period_seq: 1,
      usd_amount: "10.00",
    });
    expect(tooMuch.status).toBe(400);
    const unknown = await client.admin("/disputes/dp_nope/close", { dispute_status: "won" });
    expect(unknown.status).toBe(404);
    const won = await client.admin("/disputes", { subscription_id: SUB.ninetyNine, period_seq: 1, usd_amount: "4.00" });
    expect(won.status).toBe(201);
    const closed = await client.admin(`/disputes/${won.body.dispute_id as string}/close`, { dispute_status: "won" });
    expect(closed.body).toMatchObject({ dispute_status: "won", currency_debited: "0.00" });
  });
});
