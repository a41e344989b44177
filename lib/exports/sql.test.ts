import { describe, expect, it } from "vitest";
import { ExportValueError } from "./csv";
import { utcTimestampToInstant } from "./sql";

describe("utcTimestampToInstant", () => {
  it("turns PostgreSQL's text of a UTC timestamp into ISO 8601 with a Z, fractions as PostgreSQL wrote them", () => {
    expect(utcTimestampToInstant("2026-03-01 00:00:00")).toBe("2026-03-01T00:00:00Z");
    expect(utcTimestampToInstant("2026-03-05 12:30:45.123")).toBe("2026-03-05T12:30:45.123Z");
    expect(utcTimestampToInstant("2026-12-31 23:59:59.999999")).toBe("2026-12-31T23:59:59.999999Z");
  });

  it("refuses any other DateStyle rather than writing a wrong instant", () => {
    for (const text of [
      "03/01/2026 00:00:00",
      "01.03.2026 00:00:00",
      "Sun Mar 01 00:00:00 2026",
      "2026-03-01T00:00:00",
      "2026-03-01 00:00:00+00",
      "2026-03-01 00:00:00 BC",
    ]) {
      expect(() => utcTimestampToInstant(text), text).toThrow(ExportValueError);
      expect(() => utcTimestampToInstant(text), text).toThrow(/DateStyle to ISO/);
    }
  });
});
