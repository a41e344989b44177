import { describe, expect, it } from "vitest";
import { SECRET_TWO, SUB } from "./fixture";
import { expectError, type Client, setUpFixtureEmulator } from "./helpers";

let client: Client;
setUpFixtureEmulator((started) => {
  client = started;
});

const report = (query: Record<string, string | number>) =>
  client.get("/api/subscriptions/reporting/attribution", { query });
const cycles = (id: string, query: Record<string, string | number> = {}) =>
  client.get(`/api/subscriptions/reporting/subscriptions/${id}/attribution`, { query });
const periodIdOf = async (id: string, seq: number): Promise<number> =>
  (await cycles(id)).body.periods.find((p: any) => p.period_seq === seq).period_id;

describe("GET /api/subscriptions/reporting/attribution", () => {
  describe("filters and pagination", () => {
    it("restricts recipients with recipient_player_id but keeps platform-wide totals", async () => {
      const all = await report({ start: "2026-04-01", end: "2026-05-01" });
      const only = await report({ start: "2026-04-01", end: "2026-05-01", recipient_player_id: 777 });
      expect(only.body.totals).toEqual(all.body.totals);
      expect(only.body.recipients.map((r: any) => r.recipient.player_id)).toEqual([777]);
      expect(only.body.pagination.total_count).toBe(1);
      expect(only.body.report.filters.recipient_player_id).toBe(777);
    });

    it("restricts everything to one subscription with subscription_id", async () => {
      const call = await report({ start: "2026-01-01", end: "2026-07-01", subscription_id: SUB.monthly });
      expect(call.body.totals).toMatchObject({
        renewals_settled: 5,
        settled_gross_usd: "50.00",
        gross_attributed_usd: "9.00",
        reversed_attributed_usd: "1.80",
      });
    });

    it("sorts recipients by net descending, then id ascending, and pages them; totals never paginate", async () => {
      const page1 = await report({ start: "2026-04-01", end: "2026-05-01", limit: 1 });
      expect(page1.body.recipients.map((r: any) => r.recipient.player_id)).toEqual([2]);
      expect(page1.body.pagination).toEqual({ total_count: 2, limit: 1, offset: 0, has_more: true });
      const page2 = await report({ start: "2026-04-01", end: "2026-05-01", limit: 1, offset: 1 });
      expect(page2.body.recipients.map((r: any) => r.recipient.player_id)).toEqual([777]);
      expect(page2.body.pagination.has_more).toBe(false);
      expect(page2.body.totals).toEqual(page1.body.totals);
      const beyond = await report({ start: "2026-04-01", end: "2026-05-01", offset: 5 });
      expect(beyond.body.recipients).toEqual([]);
    });

    it("clamps any integer limit into 1..100 silently and refuses bad pagination and filters", async () => {
      const limitOf = async (limit: string | number) => {
        const call = await report({ start: "2026-04-01", end: "2026-05-01", limit });
        expect(call.status).toBe(200);
        return [call.body.pagination.limit, call.body.recipients.length];
      };
      // Spec: "Default 50, silently clamped to 100, minimum 1."
      expect(await limitOf(500)).toEqual([100, 2]);
      expect(await limitOf("99999999999999999999")).toEqual([100, 2]);
      expect(await limitOf(100)).toEqual([100, 2]);
      expect(await limitOf(1)).toEqual([1, 1]);
      expect(await limitOf(0)).toEqual([1, 1]);
      expect(await limitOf(-1)).toEqual([1, 1]);
      expect(await limitOf("-99999999999999999999")).toEqual([1, 1]);
      expect((await report({ start: "2026-04-01", end: "2026-05-01" })).body.pagination.limit).toBe(50);
      for (const limit of ["x", "1.5", "", "1e3", " 5"]) {
        expectError(await report({ start: "2026-04-01", end: "2026-05-01", limit }), 400, "PAGINATION_INVALID");
      }
      expect((await report({ start: "2026-04-01", end: "2026-05-01", offset: 100000 })).status).toBe(200);
      expectError(await report({ start: "2026-04-01", end: "2026-05-01", offset: 100001 }), 400, "PAGINATION_INVALID");
      expectError(await report({ start: "2026-04-01", end: "2026-05-01", offset: -1 }), 400, "PAGINATION_INVALID");
      expectError(await report({ start: "2026-04-01", end: "2026-05-01", offset: "x" }), 400, "PAGINATION_INVALID");
      expectError(
        await report({ start: "2026-04-01", end: "2026-05-01", recipient_player_id: "bob" }),
        400,
        "RECIPIENT_INVALID",
      );
      expectError(
        await report({ start: "2026-04-01", end: "2026-05-01", recipient_player_id: 0 }),
        400,
        "RECIPIENT_INVALID",
      );
      expectError(
        await report({ start: "2026-04-01", end: "2026-05-01", subscription_id: "S".repeat(51) }),
        400,
        "SUBSCRIPTION_ID_INVALID",
      );
      expectError(
        await report({ start: "2026-04-01", end: "2026-05-01", subscription_id: "nope" }),
        400,
        "SUBSCRIPTION_ID_INVALID",
      );
    });

    it("answers 404 SUBSCRIPTION_NOT_FOUND for an unknown subscription_id or another game's", async () => {
      // Spec: "Everything is scoped to the caller's game; ids of other tenants return 404."
      expectError(
        await report({ start: "2026-04-01", end: "2026-06-01", subscription_id: "SUB_1767225600_ZZZZ9999" }),
        404,
        "SUBSCRIPTION_NOT_FOUND",
      );
      expectError(
        await report({ start: "2026-04-01", end: "2026-06-01", subscription_id: SUB.otherGame }),
        404,
        "SUBSCRIPTION_NOT_FOUND",
      );
      const own = await client.get("/api/subscriptions/reporting/attribution", {
        secret: SECRET_TWO,
        query: { start: "2026-04-01", end: "2026-06-01", subscription_id: SUB.otherGame },
      });
      expect(own.status).toBe(200);
      expect(own.body.totals.renewals_settled).toBe(1);
      // A known subscription with nothing in the window is an empty report, not a 404.
      const quiet = await report({ start: "2025-01-01", end: "2025-02-01", subscription_id: SUB.monthly });
      expect(quiet.status).toBe(200);
      expect(quiet.body.totals.renewals_settled).toBe(0);
    });
  });

  describe("refunds with receipts and refunds known only from the period row on one period", () => {
    // ninetyNine period 2: 9.99 paid 2026-03-10, partner 8.99, bob 15%: attributed 1.35.
    const refundAt = (at: string, amount: string, receipt: boolean) =>
      client.admin("/refunds", {
        subscription_id: SUB.ninetyNine,
        period_seq: 2,
        amount_usd: amount,
        refunded_at: at,
        receipt,
      });
    const bobReversal = (call: any) =>
      call.body.recipients
        .find((r: any) => r.recipient.player_id === 2)
        .reversals.find((r: any) => r.subscription_id === SUB.ninetyNine);

    it("keeps a closed window's report unchanged when a later refund is known only from the period row", async () => {
      expect((await refundAt("2026-04-05T00:00:00Z", "3.00", true)).status).toBe(201);
      const aprilBefore = await report({ start: "2026-04-01", end: "2026-05-01", limit: 100 });
      const receiptLine = bobReversal(aprilBefore);
      // round(1.35 × 3.00 / 9.99) = 0.41 of attribution; round(8.99 × 3.00 / 9.99) = 2.70 of partner revenue.
      expect(receiptLine).toMatchObject({
        reversal_basis: "refund_receipts",
        reversed_attributed_usd: "0.41",
        partner_revenue_reversed_usd: "2.70",
      });

      expect((await refundAt("2026-05-20T00:00:00Z", "2.00", false)).status).toBe(201);
      const aprilAfter = await report({ start: "2026-04-01", end: "2026-05-01", limit: 100 });
      expect(aprilAfter.body.totals).toEqual(aprilBefore.body.totals);
      expect(aprilAfter.body.recipients).toEqual(
        aprilBefore.body.recipients.map((r: any) => ({
          ...r,
          // Reference-only figures are cumulative up to the clock; everything of the window itself is unchanged.
          reversals: r.reversals.map((line: any) =>
            line.subscription_id === SUB.ninetyNine
              ? { ...line, refunded_to_date_usd: "5.00", latest_refund_at: "2026-05-20T00:00:00Z" }
              : line,
          ),
        })),
      );

      // The period-row portion is reported in May, wholly, without partner-revenue clawback.
      const may = await report({ start: "2026-05-01", end: "2026-06-01", limit: 100 });
      expect(may.body.totals).toMatchObject({
        reversed_attributed_usd: "0.27",
        partner_revenue_reversed_usd: "0.00",
        refund_events_in_window: 1,
        reversals_without_receipts: 1,
      });
      const rowLine = bobReversal(may);
      expect(rowLine).toMatchObject({
        reversal_basis: "period_row",
        reversed_attributed_usd: "0.27",
        partner_revenue_reversed_usd: "0.00",
      });
      expect(rowLine.refund_events).toEqual([
        {
          refunded_at: "2026-05-20T00:00:00Z",
          refunded_amount_usd: "2.00",
          cumulative_refunded_before_usd: "3.00",
          cumulative_refunded_after_usd: "5.00",
          reversed_attributed_usd: "0.27",
          partner_revenue_reversed_usd: "0.00",
          partner_revenue_reversal_basis: "none",
          is_full_refund: false,
          settled_by_invo: false,
        },
      ]);

      // The period detail shows the receipt event exactly and the period-row portion as one row.
      const id = await periodIdOf(SUB.ninetyNine, 2);
      const detail = (await client.get(`/api/subscriptions/reporting/periods/${id}`)).body;
      expect(detail.refunds).toMatchObject({
        refund_count: 2,
        refunded_to_date_usd: "5.00",
        basis: "period_row",
        latest_refund_at: "2026-05-20T00:00:00Z",
      });
      expect(
        detail.refunds.events.map((e: any) => [
          e.refunded_at,
          e.refunded_amount_usd,
          e.partner_revenue_reversed_usd,
          e.partner_revenue_reversal_basis,
        ]),
      ).toEqual([
        ["2026-04-05T00:00:00Z", "3.00", "2.70", "clawback"],
        ["2026-05-20T00:00:00Z", "2.00", "0.00", "none"],
      ]);
      expect(detail.refunds.events[0].refund_transaction_id).toMatch(/^rtx_/);
      expect(detail.refunds.events[1].refund_transaction_id).toBeNull();
      expect(detail.fee_legs).toMatchObject({ partner_revenue_reversed_usd: "2.70", partner_revenue_usd: "6.29" });

      // A receipt refund completing the period later leaves both earlier windows as they were.
      await client.post(`/api/subscriptions/${SUB.ninetyNine}/refund`, {
        client_request_id: "mixed-rest",
        period_seq: 2,
      });
      const mayAgain = await report({ start: "2026-05-01", end: "2026-06-01", limit: 100 });
      expect(mayAgain.body.totals).toEqual(may.body.totals);
      const june = await report({ start: "2026-06-01", end: "2026-07-01", limit: 100 });
      // The completing refund reverses what remains: 1.35 − 0.41 − 0.27 = 0.67.
      expect(bobReversal(june)).toMatchObject({ reversal_basis: "refund_receipts", reversed_attributed_usd: "0.67" });
      const whole = await report({ start: "2026-03-01", end: "2026-07-01", subscription_id: SUB.ninetyNine });
      const line = whole.body.recipients[0].reversals[0];
      expect(line.reversed_attributed_usd).toBe("1.35");
      expect(line.refund_events.map((e: any) => e.refunded_amount_usd)).toEqual(["3.00", "2.00", "4.99"]);
    });
  });
});
