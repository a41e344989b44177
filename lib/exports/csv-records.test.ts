import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { crlfRecords } from "./csv-records";

describe("crlfRecords", () => {
  it("ends each record with CRLF and leaves line breaks inside quoted cells as they are", () => {
    const written = 'a,"b\nc",d\n"x ""y""\n",,\nplain,row,here\n';
    const { bytes, ends } = crlfRecords(Buffer.from(written));
    const text = bytes.toString();
    expect(text).toBe('a,"b\nc",d\r\n"x ""y""\n",,\r\nplain,row,here\r\n');
    expect(ends).toEqual([11, 25, 41]);
    expect(parse(text, { record_delimiter: "\r\n" })).toEqual([
      ["a", "b\nc", "d"],
      ['x "y"\n', "", ""],
      ["plain", "row", "here"],
    ]);
  });

  it("writes nothing for no records and refuses a record that does not end", () => {
    expect(crlfRecords(Buffer.alloc(0)).ends).toEqual([]);
    expect(() => crlfRecords(Buffer.from("a,b"))).toThrow(/ends inside a record/);
    expect(() => crlfRecords(Buffer.from('a,"b\n'))).toThrow(/ends inside a record/);
  });
});
