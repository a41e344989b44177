import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MAX_WINDOW_MS,
  addMonths,
  formatInstant,
  formatWindow,
  instantInputSchema,
  isPartitionOf,
  isWindowClosed,
  listMonths,
  makeWindow,
  monthKeyOf,
  monthWindow,
  parseInstant,
  parseServiceInstant,
  parseWindow,
  splitWindow,
  windowContains,
  windowDaysText,
  windowUtcText,
  windowInputSchema,
  windowProblem,
  windowToQuery,
} from "./time";

const at = (iso: string) => Date.parse(iso);

describe("parseInstant", () => {
  it("reads a date as midnight UTC", () => {
    expect(parseInstant("2026-03-01")).toBe(at("2026-03-01T00:00:00Z"));
  });

  it("stamps naive date-times UTC and honours explicit offsets", () => {
    expect(parseInstant("2026-03-01T12:30")).toBe(at("2026-03-01T12:30:00Z"));
    expect(parseInstant("2026-03-01T12:30:15")).toBe(at("2026-03-01T12:30:15Z"));
    expect(parseInstant("2026-03-01T12:30:15Z")).toBe(at("2026-03-01T12:30:15Z"));
    expect(parseInstant("2026-03-01T12:30:15+02:00")).toBe(at("2026-03-01T10:30:15Z"));
    expect(parseInstant("2026-03-01T00:00:00-0530")).toBe(at("2026-03-01T05:30:00Z"));
    expect(parseInstant("2026-03-01T00:00:00+01")).toBe(at("2026-02-28T23:00:00Z"));
    expect(parseInstant("2026-03-01 08:00:00")).toBe(at("2026-03-01T08:00:00Z"));
  });

  it("keeps milliseconds and accepts finer fractions only when they are zero", () => {
    expect(parseInstant("2026-03-01T00:00:00.5Z")).toBe(at("2026-03-01T00:00:00.500Z"));
    expect(parseInstant("2026-03-01T00:00:00.123000Z")).toBe(at("2026-03-01T00:00:00.123Z"));
    expect(parseInstant("2026-03-01T00:00:00.1234Z")).toBeNull();
  });

  it("reads a service timestamp finer than a millisecond as its millisecond, in the same windows", () => {
    expect(parseServiceInstant("2026-03-01T00:00:00.123456Z")).toBe(at("2026-03-01T00:00:00.123Z"));
    expect(parseServiceInstant("2026-03-01T02:00:00.999999999+02:00")).toBe(at("2026-03-01T00:00:00.999Z"));
    expect(parseServiceInstant("2026-03-01T00:00:00.5Z")).toBe(at("2026-03-01T00:00:00.500Z"));
    expect(parseServiceInstant("2026-02-30T00:00:00.123456Z")).toBeNull();
    const march = parseWindow("2026-03-01", "2026-04-01");
    expect(windowContains(march, "2026-03-31T23:59:59.999999Z")).toBe(true);
    expect(windowContains(march, "2026-02-28T23:59:59.999999Z")).toBe(false);
    expect(windowContains(march, "2026-03-01T00:00:00.000001Z")).toBe(true);
    // A bound someone types is still exact.
    expect(parseInstant("2026-03-01T00:00:00.000001Z")).toBeNull();
  });

  it("refuses impossible calendar values and other shapes", () => {
    for (const bad of [
      "2026-02-29",
      "2026-13-01",
      "2026-04-31",
      "2026-03-01T24:00:00Z",
      "2026-03-01T12:60:00Z",
      "2026-03-01T12:00:60Z",
      "2026-03-01T12:00:00+24:00",
      "2026/03/01",
      "March 1 2026",
      "1772323200",
      "",
      "0099-01-01",
    ]) {
      expect(parseInstant(bad), bad).toBeNull();
    }
    expect(parseInstant("2028-02-29")).toBe(at("2028-02-29T00:00:00Z"));
  });

  it("round-trips every instant through formatInstant", () => {
    fc.assert(
      fc.property(fc.integer({ min: at("1970-01-01T00:00:00Z"), max: at("2200-01-01T00:00:00Z") }), (ms) => {
        const text = formatInstant(ms);
        expect(text.endsWith("Z")).toBe(true);
        expect(parseInstant(text)).toBe(ms);
      }),
    );
  });

  it("reads the plain UTC form as the calendar-checked path does", () => {
    fc.assert(
      fc.property(fc.integer({ min: at("1000-01-01T00:00:00Z"), max: at("9999-12-31T23:59:59.999Z") }), (ms) => {
        for (const text of [new Date(ms).toISOString(), new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z")]) {
          // A leading space takes the general path (the text is trimmed first).
          expect(parseServiceInstant(text)).toBe(parseServiceInstant(` ${text}`));
          expect(parseInstant(text)).toBe(parseInstant(` ${text}`));
        }
      }),
    );
    for (const bad of [
      "2026-02-29T00:00:00Z",
      "2026-04-31T00:00:00.000Z",
      "2026-01-01T24:00:00Z",
      "0999-01-01T00:00:00Z",
    ])
      expect(parseServiceInstant(bad), bad).toBe(parseServiceInstant(` ${bad}`));
  });

  it("formats whole seconds without a fraction", () => {
    expect(formatInstant(at("2026-03-01T00:00:00Z"))).toBe("2026-03-01T00:00:00Z");
    expect(formatInstant(at("2026-03-01T00:00:00.250Z"))).toBe("2026-03-01T00:00:00.250Z");
    expect(formatInstant(new Date(at("2026-03-01T10:00:00+02:00")))).toBe("2026-03-01T08:00:00Z");
  });
});

describe("window inputs", () => {
  it("parses start and end into a window", () => {
    expect(parseWindow("2026-03-01", "2026-04-01")).toEqual({
      startMs: at("2026-03-01T00:00:00Z"),
      endMs: at("2026-04-01T00:00:00Z"),
    });
    expect(instantInputSchema.safeParse("nope").success).toBe(false);
  });

  it("refuses an end not after start and a window over 400 days", () => {
    expect(windowInputSchema.safeParse({ start: "2026-03-01", end: "2026-03-01" }).success).toBe(false);
    expect(windowInputSchema.safeParse({ start: "2026-03-02", end: "2026-03-01" }).success).toBe(false);
    const exactly400 = windowInputSchema.safeParse({ start: "2026-01-01", end: "2027-02-05" });
    expect(exactly400.success).toBe(true);
    const tooLong = windowInputSchema.safeParse({ start: "2026-01-01", end: "2027-02-05T00:00:01Z" });
    expect(tooLong.success).toBe(false);
    expect(tooLong.error?.issues[0]?.message).toMatch(/400 days/);
    expect(windowProblem({ startMs: 0, endMs: MAX_WINDOW_MS + 1 })).toBe("WINDOW_TOO_LONG");
    expect(windowProblem({ startMs: 5, endMs: 5 })).toBe("WINDOW_INVALID");
    expect(() => makeWindow(10, 5)).toThrow();
  });

  it("formats as query parameters and text", () => {
    const window = parseWindow("2026-03-01T00:00:00+01:00", "2026-03-02");
    expect(windowToQuery(window)).toEqual({ start: "2026-02-28T23:00:00Z", end: "2026-03-02T00:00:00Z" });
    expect(formatWindow(window)).toBe("[2026-02-28T23:00:00Z, 2026-03-02T00:00:00Z)");
  });
});

describe("windowContains", () => {
  const march = monthWindow("2026-03");

  it("includes the start and excludes the end", () => {
    expect(windowContains(march, "2026-03-01T00:00:00Z")).toBe(true);
    expect(windowContains(march, "2026-03-31T23:59:59.999Z")).toBe(true);
    expect(windowContains(march, "2026-04-01T00:00:00Z")).toBe(false);
    expect(windowContains(march, "2026-02-28T23:59:59.999Z")).toBe(false);
    expect(windowContains(march, new Date("2026-03-15T00:00:00Z"))).toBe(true);
    expect(windowContains(march, "2026-04-01T01:00:00+02:00")).toBe(true);
    expect(windowContains(march, "garbage")).toBe(false);
  });

  it("knows when a window is closed", () => {
    expect(isWindowClosed(march, at("2026-04-01T00:00:00Z"))).toBe(true);
    expect(isWindowClosed(march, at("2026-03-31T23:59:59Z"))).toBe(false);
  });
});

describe("months", () => {
  it("builds a month window", () => {
    expect(windowToQuery(monthWindow("2026-03"))).toEqual({
      start: "2026-03-01T00:00:00Z",
      end: "2026-04-01T00:00:00Z",
    });
    expect(windowToQuery(monthWindow("2026-12"))).toEqual({
      start: "2026-12-01T00:00:00Z",
      end: "2027-01-01T00:00:00Z",
    });
    expect(() => monthWindow("2026-13")).toThrow();
    expect(() => monthWindow("2026-3")).toThrow();
  });

  it("moves between months", () => {
    expect(addMonths("2026-01", -1)).toBe("2025-12");
    expect(addMonths("2026-11", 3)).toBe("2027-02");
    expect(monthKeyOf(at("2026-03-31T23:59:59.999Z"))).toBe("2026-03");
  });

  it("lists the months a window overlaps", () => {
    expect(listMonths(parseWindow("2026-01-15", "2026-03-01"))).toEqual(["2026-01", "2026-02"]);
    expect(listMonths(parseWindow("2026-01-15", "2026-03-01T00:00:01Z"))).toEqual(["2026-01", "2026-02", "2026-03"]);
    expect(listMonths(parseWindow("2025-11-30", "2026-02-01"))).toEqual(["2025-11", "2025-12", "2026-01"]);
    expect(listMonths(monthWindow("2026-03"))).toEqual(["2026-03"]);
  });
});

describe("splitWindow", () => {
  it("splits a month into adjacent halves on whole seconds", () => {
    const parts = splitWindow(monthWindow("2026-03"), 2);
    expect(parts.map(windowToQuery)).toEqual([
      { start: "2026-03-01T00:00:00Z", end: "2026-03-16T12:00:00Z" },
      { start: "2026-03-16T12:00:00Z", end: "2026-04-01T00:00:00Z" },
    ]);
  });

  it("keeps boundaries on whole seconds when a split is uneven", () => {
    const parts = splitWindow(parseWindow("2026-03-01T00:00:00Z", "2026-03-01T00:00:10Z"), 3);
    expect(parts.map((p) => formatInstant(p.endMs))).toEqual([
      "2026-03-01T00:00:03Z",
      "2026-03-01T00:00:06Z",
      "2026-03-01T00:00:10Z",
    ]);
    expect(() => splitWindow(parseWindow("2026-03-01T00:00:00Z", "2026-03-01T00:00:02Z"), 3)).toThrow();
    expect(() => splitWindow(monthWindow("2026-03"), 0)).toThrow();
  });

  it("partitions any window exactly, and every boundary round-trips through its ISO form", () => {
    const lo = at("2020-01-01T00:00:00Z");
    const hi = at("2030-01-01T00:00:00Z");
    fc.assert(
      fc.property(
        fc.integer({ min: lo, max: hi }),
        fc.integer({ min: 1, max: MAX_WINDOW_MS }),
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        (start, length, wholeSeconds, parts) => {
          const startMs = wholeSeconds ? start - (start % 1000) : start;
          const lengthMs = wholeSeconds ? Math.max(1000, length - (length % 1000)) : length;
          const window = { startMs, endMs: startMs + lengthMs };
          const unit = wholeSeconds ? 1000 : startMs % 1000 === 0 && lengthMs % 1000 === 0 ? 1000 : 1;
          fc.pre(lengthMs / unit >= parts);
          const split = splitWindow(window, parts);
          expect(split).toHaveLength(parts);
          expect(isPartitionOf(window, split)).toBe(true);
          const sizes = split.map((p) => p.endMs - p.startMs);
          expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(unit);
          for (const part of split) {
            if (wholeSeconds) expect(part.startMs % 1000).toBe(0);
            const query = windowToQuery(part);
            expect(parseInstant(query.start)).toBe(part.startMs);
            expect(parseInstant(query.end)).toBe(part.endMs);
          }
          // every instant of the window falls in exactly one part
          const probe = startMs + Math.floor(lengthMs / 3);
          expect(split.filter((p) => windowContains(p, probe))).toHaveLength(1);
        },
      ),
    );
  });

  it("recognises what is not a partition", () => {
    const window = monthWindow("2026-03");
    const [a, b] = splitWindow(window, 2) as [ReturnType<typeof monthWindow>, ReturnType<typeof monthWindow>];
    expect(isPartitionOf(window, [a, b])).toBe(true);
    expect(isPartitionOf(window, [b, a])).toBe(false);
    expect(isPartitionOf(window, [a])).toBe(false);
    expect(isPartitionOf(window, [])).toBe(false);
    expect(isPartitionOf(window, [a, { startMs: b.startMs + 1000, endMs: b.endMs }])).toBe(false);
  });
});

describe("windowDaysText", () => {
  it("names a window of whole UTC days by its first and last day", () => {
    expect(windowDaysText("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z")).toBe("2026-03-01 to 2026-03-31");
    expect(windowDaysText("2026-03-05T00:00:00Z", "2026-03-06T00:00:00Z")).toBe("2026-03-05 to 2026-03-05");
  });

  it("names the instants of a window not of whole UTC days, so that the next one does not claim a day of it", () => {
    // March taken in Tokyo's time (UTC+9), then April.
    const march = windowDaysText("2026-02-28T15:00:00Z", "2026-03-31T15:00:00Z");
    const april = windowDaysText("2026-03-31T15:00:00Z", "2026-04-30T15:00:00Z");
    expect(march).toBe("2026-02-28 15:00 UTC up to 2026-03-31 15:00 UTC");
    expect(april).toBe("2026-03-31 15:00 UTC up to 2026-04-30 15:00 UTC");
    expect(windowDaysText("2026-03-01T00:00:30Z", "2026-04-01T00:00:00Z")).toBe(
      "2026-03-01 00:00:30 UTC up to 2026-04-01 00:00 UTC",
    );
    // Said in UTC once, whichever the form.
    expect(windowUtcText("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z")).toBe("2026-03-01 to 2026-03-31 (UTC)");
    expect(windowUtcText("2026-02-28T15:00:00Z", "2026-03-31T15:00:00Z")).toBe(march);
  });
});
