import { describe, expect, it } from "vitest";
import { compareVersions, createDriftComparer } from "./drift";
import type { SnapshotRows } from "./rows";

const previousRows: SnapshotRows = {
  recipients: [
    { recipient_player_id: "7", renewal_count: 2, gross_attributed_usd: "3.60", player_email: "a@x.test" },
    { recipient_player_id: "8", renewal_count: 1, gross_attributed_usd: "1.80", player_email: "b@x.test" },
  ],
  lines: [
    {
      period_id: "1",
      recipient_player_id: "7",
      amount_usd: "10.00",
      funding: { rail: "card", card_charged_usd: "10.00" },
    },
    {
      period_id: "2",
      recipient_player_id: "7",
      amount_usd: "10.00",
      funding: { rail: "card", card_charged_usd: "10.00" },
    },
    { period_id: "3", recipient_player_id: "8", amount_usd: "10.00", funding: null },
  ],
  reversals: [],
  events: [],
};

const currentRows: SnapshotRows = {
  recipients: [
    { recipient_player_id: 7, renewal_count: 2, gross_attributed_usd: "3.6", player_email: "a2@x.test" },
    { recipient_player_id: 9, renewal_count: 1, gross_attributed_usd: "1.80", player_email: "c@x.test" },
  ],
  lines: [
    // The same funding with its keys in another order (as jsonb returns them) is no drift.
    { period_id: 1, recipient_player_id: 7, amount_usd: "10", funding: { card_charged_usd: "10.00", rail: "card" } },
    { period_id: 2, recipient_player_id: 7, amount_usd: "10.00", funding: { card_charged_usd: "9.00", rail: "card" } },
    { period_id: 4, recipient_player_id: 9, amount_usd: "10.00", funding: null },
  ],
  reversals: [],
  events: [],
};

describe("drift comparer", () => {
  it("finds the same differences, in the same order, when rows come page by page", () => {
    const previous = { totals: { recipient_count: 2 }, rows: previousRows };
    const whole = compareVersions(previous, { totals: { recipient_count: 2 }, rows: currentRows });
    const comparer = createDriftComparer(previous);
    comparer.add({
      recipients: currentRows.recipients.slice(0, 1),
      lines: currentRows.lines.slice(0, 2),
      reversals: [],
      events: [],
    });
    comparer.add({
      recipients: currentRows.recipients.slice(1),
      lines: currentRows.lines.slice(2),
      reversals: [],
      events: [],
    });
    expect(comparer.finish({ recipient_count: 2 })).toEqual(whole);
    expect(whole.map((e) => [e.severity, e.entity, e.entityKey, e.field])).toEqual([
      ["notice", "recipient", "7", "player_email"],
      ["drift", "recipient", "9", "(present)"],
      ["drift", "recipient", "8", "(present)"],
      ["drift", "line", "2", "funding"],
      ["drift", "line", "4", "(present)"],
      ["drift", "line", "3", "(present)"],
    ]);
    expect(whole.find((e) => e.field === "funding")).toMatchObject({
      previous: '{"card_charged_usd":"10.00","rail":"card"}',
      current: '{"card_charged_usd":"9.00","rail":"card"}',
    });
  });

  it("compares the totals last given", () => {
    const comparer = createDriftComparer({
      totals: { net_attributed_usd: "5.00" },
      rows: { recipients: [], lines: [], reversals: [], events: [] },
    });
    expect(comparer.finish({ net_attributed_usd: "5.01" })).toEqual([
      {
        severity: "drift",
        entity: "totals",
        entityKey: "window",
        field: "net_attributed_usd",
        previous: "5",
        current: "5.01",
      },
    ]);
  });
});
