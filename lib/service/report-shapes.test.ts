import { describe, expect, it } from "vitest";
import { attributionReportBody } from "./__fixtures__/bodies";
import { attributionReportSchema } from "./schemas";

/** Fields the spec names without giving their shape: none of them is a reason to refuse a report page. */
describe("report fields of no shown shape", () => {
  it("takes the echoed filters, end_exclusive and a line's recipient in any shape", () => {
    const body = attributionReportBody();
    const report = body.report as unknown as { filters: unknown; window: Record<string, unknown> };
    report.filters = { recipient_player_id: "1002", subscription_id: 7, extra: [1] };
    report.window.end_exclusive = { inclusive: false };
    const attribution = body.recipients[0]!.periods[0]!.attribution as Record<string, unknown>;
    attribution.recipient = 1002;
    const parsed = attributionReportSchema.parse(body);
    expect(parsed.report.filters).toEqual({ recipient_player_id: "1002", subscription_id: 7, extra: [1] });
    expect(parsed.report.window.end_exclusive).toEqual({ inclusive: false });
    // A recipient block that is not one is dropped, not a reason to refuse the page.
    expect(parsed.recipients[0]?.periods[0]?.attribution?.recipient).toBeUndefined();
    attribution.recipient = { player_email: "rec@example.test", player_name: null };
    expect(attributionReportSchema.parse(body).recipients[0]?.periods[0]?.attribution?.recipient).toEqual({
      player_email: "rec@example.test",
      player_name: null,
    });
    delete (report as { filters?: unknown }).filters;
    expect(attributionReportSchema.safeParse(body).success).toBe(true);
  });
});
