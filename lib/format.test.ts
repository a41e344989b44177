import { describe, expect, it } from "vitest";
import {
  countOf,
  formatUsdText,
  fieldErrorText,
  formatAmountText,
  formatCount,
  formatUtcDateTime,
  parseIsoUtc,
  prettyJsonText,
  splitAmount,
} from "./format";

describe("formatUsdText", () => {
  it("reads amounts in running text grouped, as every table shows them", () => {
    expect(formatUsdText("3812.30")).toBe("USD 3,812.30");
    expect(formatUsdText("-1234567.5")).toBe("USD -1,234,567.5");
    expect(formatUsdText("1.00")).toBe("USD 1.00");
    expect(formatUsdText("n/a")).toBe("USD n/a");
  });
});

describe("formatAmountText", () => {
  it("groups thousands and keeps every digit as given", () => {
    expect(formatAmountText("1234.50")).toBe("1,234.50");
    expect(formatAmountText("1234.5")).toBe("1,234.5");
    expect(formatAmountText("0.10")).toBe("0.10");
    expect(formatAmountText("999")).toBe("999");
    expect(formatAmountText("1000")).toBe("1,000");
    expect(formatAmountText("1234567.000000000001")).toBe("1,234,567.000000000001");
  });

  it("keeps digits no float can hold", () => {
    expect(formatAmountText("123456789012345678.99")).toBe("123,456,789,012,345,678.99");
  });

  it("prefixes the currency and keeps the minus sign", () => {
    expect(formatAmountText("-1234.50", { currency: "USD" })).toBe("USD -1,234.50");
    expect(formatAmountText("-0.35")).toBe("-0.35");
  });

  it("shows a negative zero as zero", () => {
    expect(formatAmountText("-0.00")).toBe("0.00");
    expect(splitAmount("-0.00")?.negative).toBe(false);
    expect(splitAmount("-0.01")?.negative).toBe(true);
  });

  it("refuses text that is not a plain decimal", () => {
    for (const bad of ["", "1e3", "NaN", " 1.00", "1.00 ", "+1.00", "1,000.00", "1.", ".5", "--1", "0x10"]) {
      expect(() => formatAmountText(bad), bad).toThrow();
    }
  });
});

describe("formatCount", () => {
  it("groups integers", () => {
    expect(formatCount(20000)).toBe("20,000");
    expect(formatCount(0)).toBe("0");
    expect(formatCount(-1500)).toBe("-1,500");
  });
});

describe("countOf", () => {
  it("names one in the singular and any other count in the plural, grouped", () => {
    expect(countOf(1, "statement")).toBe("1 statement");
    expect(countOf(0, "statement")).toBe("0 statements");
    expect(countOf(1200, "statement email")).toBe("1,200 statement emails");
    expect(countOf(2, "child", "children")).toBe("2 children");
    expect(countOf(1, "child", "children")).toBe("1 child");
  });
});

describe("formatUtcDateTime", () => {
  it("renders UTC whatever the machine's zone", () => {
    expect(formatUtcDateTime("2026-03-01T14:05:09Z")).toBe("2026-03-01 14:05 UTC");
    expect(formatUtcDateTime("2026-03-01T14:05:09.123Z", { seconds: true })).toBe("2026-03-01 14:05:09 UTC");
    expect(formatUtcDateTime("2026-03-01T15:05:00+01:00")).toBe("2026-03-01 14:05 UTC");
    expect(formatUtcDateTime("2026-03-01 14:05:00")).toBe("2026-03-01 14:05 UTC");
    expect(formatUtcDateTime("2026-03-01")).toBe("2026-03-01 00:00 UTC");
    expect(formatUtcDateTime("2026-03-01T23:30:00-01:00", { dateOnly: true })).toBe("2026-03-02");
    // An offset of hours alone, as PostgreSQL writes timestamps: the same instant as "+00:00".
    expect(parseIsoUtc("2026-04-01 00:00:00+00")).toBe(Date.UTC(2026, 3, 1));
    expect(formatUtcDateTime("2026-04-01T02:00:00+02")).toBe("2026-04-01 00:00 UTC");
  });

  it("returns null for text that is not ISO 8601", () => {
    expect(formatUtcDateTime("yesterday")).toBeNull();
    expect(formatUtcDateTime("2026-13-01")).toBeNull();
    expect(parseIsoUtc("")).toBeNull();
  });
});

describe("prettyJsonText", () => {
  it("indents without touching numbers or strings", () => {
    const raw = '{"amount":0.1000000000000000055,"id":12345678901234567890,"note":"a, b: {c}","tags":[],"x":{}}';
    expect(prettyJsonText(raw)).toBe(
      [
        "{",
        '  "amount": 0.1000000000000000055,',
        '  "id": 12345678901234567890,',
        '  "note": "a, b: {c}",',
        '  "tags": [],',
        '  "x": {}',
        "}",
      ].join("\n"),
    );
  });

  it("handles escaped quotes and nesting", () => {
    expect(prettyJsonText('[{"a":"say \\"hi\\""},[1,2]]')).toBe(
      '[\n  {\n    "a": "say \\"hi\\""\n  },\n  [\n    1,\n    2\n  ]\n]',
    );
  });

  it("returns unbalanced text unchanged", () => {
    expect(prettyJsonText('{"a":1')).toBe('{"a":1');
    expect(prettyJsonText("not json]")).toBe("not json]");
  });
});

describe("fieldErrorText", () => {
  it("names the field", () => {
    expect(fieldErrorText("Amount", "must be greater than 0")).toBe("Amount must be greater than 0");
    expect(fieldErrorText("Email", "Email is already in use")).toBe("Email is already in use");
    expect(fieldErrorText("Reason", "Required")).toBe("Reason: Required");
    expect(fieldErrorText("Date", "cannot be in the future")).toBe("Date cannot be in the future");
    // A message that is not a verb of the label follows it after a colon, never glued on.
    expect(fieldErrorText("Reason", "say why (at least 5 characters)")).toBe("Reason: say why (at least 5 characters)");
    expect(fieldErrorText("File", "the file is empty")).toBe("File: the file is empty");
  });
});
