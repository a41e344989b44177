import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { crlfRecords, crlfWholeRecords, lastRecordCell } from "./csv-records";

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

describe("crlfWholeRecords", () => {
  it("gives the same bytes however the output is split, keeping what follows the last whole record", () => {
    const written = Buffer.from('a,"b\nc",d\n"x ""y""\n",,\nplain,row,here\n');
    const whole = crlfRecords(written).bytes;
    for (let split = 0; split <= written.length; split++) {
      const first = crlfWholeRecords(written.subarray(0, split));
      const second = crlfWholeRecords(Buffer.concat([first.rest, written.subarray(split)]));
      expect(second.rest.length, `split at ${split}`).toBe(0);
      expect(Buffer.concat([first.records.bytes, second.records.bytes]).equals(whole), `split at ${split}`).toBe(true);
    }
  });
});

describe("lastRecordCell", () => {
  it("reads a cell of the last record, quoted or not", () => {
    const records = crlfRecords(Buffer.from('1,2,3\n"a, ""b""\nc",,42,"x"\n'));
    expect(lastRecordCell(records, 0)).toBe('a, "b"\nc');
    expect(lastRecordCell(records, 1)).toBe("");
    expect(lastRecordCell(records, 2)).toBe("42");
    expect(lastRecordCell(records, 3)).toBe("x");
    expect(() => lastRecordCell(records, 4)).toThrow(/no cell 4/);
    expect(lastRecordCell(crlfRecords(Buffer.alloc(0)), 0)).toBeNull();
  });
});
