import { describe, expect, it } from "vitest";
import { periodOfCron, periodStartMs, schedulePeriod } from "./schedule-period";

const at = (iso: string) => Date.parse(iso);

describe("schedule periods", () => {
  it("reads the cron forms the jobs use", () => {
    expect(periodOfCron("* * * * *")).toEqual({ seconds: 60, offsetSeconds: 0 });
    expect(periodOfCron("*/5 * * * *")).toEqual({ seconds: 300, offsetSeconds: 0 });
    expect(periodOfCron("7 * * * *")).toEqual({ seconds: 3600, offsetSeconds: 420 });
  });

  it("refuses other forms rather than run on a schedule it does not understand", () => {
    for (const cron of ["0 9 * * *", "*/7 * * * *", "61 * * * *", "* * * *", "1-5 * * * *"]) {
      expect(() => periodOfCron(cron), cron).toThrow(/schedule/);
    }
  });

  it("puts an instant in the period that holds it, offset included", () => {
    const hourly = periodOfCron("7 * * * *");
    expect(new Date(periodStartMs(hourly, at("2026-11-22T10:06:59Z"))).toISOString()).toBe("2026-11-22T09:07:00.000Z");
    expect(new Date(periodStartMs(hourly, at("2026-11-22T10:07:00Z"))).toISOString()).toBe("2026-11-22T10:07:00.000Z");
    const fiveMinutes = periodOfCron("*/5 * * * *");
    expect(new Date(periodStartMs(fiveMinutes, at("2026-11-22T10:14:59Z"))).toISOString()).toBe(
      "2026-11-22T10:10:00.000Z",
    );
  });

  it("an override replaces the period, and a bad cron is refused even then", () => {
    expect(schedulePeriod("7 * * * *", 5)).toEqual({ seconds: 5, offsetSeconds: 0 });
    expect(schedulePeriod("7 * * * *")).toEqual({ seconds: 3600, offsetSeconds: 420 });
    expect(() => schedulePeriod("0 9 * * *", 5)).toThrow(/schedule/);
  });
});
