import { describe, expect, it } from "vitest";
import { formatWindow, parseInstant } from "@/lib/time";
import { duePulls } from "./schedule";
import { DEFAULT_AUTOMATION, readAutomation } from "./settings";

const at = (text: string) => parseInstant(text) as number;

describe("duePulls", () => {
  it("on the first of a month: the month that closed and the new month so far", () => {
    const due = duePulls(at("2026-12-01T00:07:00Z"), DEFAULT_AUTOMATION);
    expect(due.map((d) => [d.kind, d.periodKey, formatWindow(d.window)])).toEqual([
      ["previous_month", "2026-11", "[2026-11-01T00:00:00Z, 2026-12-01T00:00:00Z)"],
      ["current_month", "2026-12-01", "[2026-12-01T00:00:00Z, 2027-01-01T00:00:00Z)"],
    ]);
  });

  it("crosses a year", () => {
    const due = duePulls(at("2027-01-01T05:00:00Z"), DEFAULT_AUTOMATION);
    expect(due[0]).toMatchObject({ kind: "previous_month", periodKey: "2026-12" });
  });

  it("catches the closed month up for a few days, then only the daily pull is due", () => {
    expect(duePulls(at("2026-12-03T23:59:59Z"), DEFAULT_AUTOMATION).map((d) => d.kind)).toEqual([
      "previous_month",
      "current_month",
    ]);
    expect(duePulls(at("2026-12-04T00:00:00Z"), DEFAULT_AUTOMATION).map((d) => d.kind)).toEqual(["current_month"]);
  });

  it("keys the daily pull by UTC day, so each day queues one", () => {
    const [late] = duePulls(at("2026-11-22T23:59:59Z"), { ...DEFAULT_AUTOMATION, pullPreviousMonth: false });
    const [next] = duePulls(at("2026-11-23T00:00:00Z"), { ...DEFAULT_AUTOMATION, pullPreviousMonth: false });
    expect(late?.periodKey).toBe("2026-11-22");
    expect(next?.periodKey).toBe("2026-11-23");
    expect(late?.window).toEqual(next?.window);
  });

  it("follows the settings", () => {
    expect(
      duePulls(at("2026-12-01T00:00:00Z"), {
        autoRefresh: true,
        pullPreviousMonth: false,
        pullCurrentMonthDaily: false,
      }),
    ).toEqual([]);
  });
});

describe("readAutomation", () => {
  it("falls back to the defaults for missing or unreadable values", () => {
    expect(readAutomation({})).toEqual({ autoRefresh: false, pullPreviousMonth: true, pullCurrentMonthDaily: true });
    expect(readAutomation({ automation: { autoRefresh: "yes", pullPreviousMonth: false } })).toEqual({
      autoRefresh: false,
      pullPreviousMonth: false,
      pullCurrentMonthDaily: true,
    });
    expect(readAutomation({ automation: "on", pacing: "off" })).toEqual(DEFAULT_AUTOMATION);
  });
});
