import { describe, expect, it } from "vitest";
import { CsvUnreadableError, readCsv } from "./csv";
import { resultAmountSchema, resultTransactionIdSchema } from "./results";

describe("an amount in a results file", () => {
  it("reads a decimal point with thousands commas, and an empty cell as none", () => {
    expect(resultAmountSchema.parse("1,234.56")).toBe("1234.56");
    expect(resultAmountSchema.parse("12,345,678.9")).toBe("12345678.9");
    expect(resultAmountSchema.parse(" -0.35 ")).toBe("-0.35");
    expect(resultAmountSchema.parse("1234")).toBe("1234");
    expect(resultAmountSchema.parse("")).toBeNull();
  });

  it("refuses a decimal comma and commas that are not thousands groups, never reading 12,34 as 1234", () => {
    for (const cell of [
      "12,34",
      "100,50",
      "0,35",
      "0,350",
      "000,000",
      "-0,350",
      "1,2,3",
      "1234,567",
      ",123",
      "1,234,56",
      "1,250",
      "12,345,678",
      "12.34.5",
      "1e3",
    ]) {
      expect(resultAmountSchema.safeParse(cell).success, cell).toBe(false);
    }
  });
});

describe("a provider's transaction id in a results file", () => {
  it("is kept whole up to 255 characters, and a longer one is the line's error", () => {
    expect(resultTransactionIdSchema.parse(" TX-1 ")).toBe("TX-1");
    expect(resultTransactionIdSchema.parse("")).toBeNull();
    expect(resultTransactionIdSchema.parse("T".repeat(255))).toHaveLength(255);
    const long = resultTransactionIdSchema.safeParse("T".repeat(4_000));
    expect(long.success).toBe(false);
    expect(long.error?.issues[0]?.message).toBe("transaction id over 255 characters");
  });
});

describe("a CSV file in another encoding or with other separators", () => {
  const refusal = (text: string, strict = true) => {
    try {
      readCsv(text, { strict });
    } catch (error) {
      if (error instanceof CsvUnreadableError) return error.message;
      throw error;
    }
    return "read";
  };

  it("refuses, in a strict file, text that was not UTF-8 (replacement characters) or UTF-16, naming the line", () => {
    // Windows-1252 "Jürgen" read as UTF-8, as a browser's file.text() or a UTF-8 read of the file gives it.
    const cp1252 = new TextDecoder("utf-8").decode(
      Buffer.from("player_id,account_holder\r\n7,J\xfcrgen\r\n", "latin1"),
    );
    expect(refusal(cp1252)).toBe("text that is not UTF-8 (save the file as CSV UTF-8) on line 2");
    const utf16 = Buffer.from("\ufeffplayer_id,account_holder\r\n", "utf16le").toString("utf8");
    expect(refusal(utf16)).toMatch(/^(UTF-16 text|text that is not UTF-8) \(save the file as CSV UTF-8\) on line 1$/);
    expect(refusal("player_id\u0000,x\r\n")).toBe("UTF-16 text (save the file as CSV UTF-8) on line 1");
    // A provider's results: a reason in Windows-1252 is read (its accent lost); UTF-16 is still refused.
    expect(refusal(cp1252, false)).toBe("read");
    expect(refusal("reference\u0000,outcome\r\n", false)).toBe("UTF-16 text (save the file as CSV UTF-8) on line 1");
  });

  it("says a file separated by semicolons or tabs is not comma-separated, and reads UTF-8 names as written", () => {
    expect(refusal("player_id;account_holder\r\n7;Jürgen\r\n")).toBe(
      "cells separated by semicolons, not commas (save it as CSV with commas) on line 1",
    );
    expect(refusal("player_id\taccount_holder\r\n")).toMatch(/^cells separated by tabs/);
    expect(readCsv("\ufeffplayer_id,account_holder\r\n7,Jürgen\r\n")[1]?.cells).toEqual(["7", "Jürgen"]);
  });
});
