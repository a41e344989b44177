import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrayLiteral, instantText } from "@/db/queries/snapshot-store";
import { formatInstant } from "@/lib/time";
import { createTestDatabase, type TestDatabase } from "../support/db";

/**
 * Snapshot rows travel to PostgreSQL as one array literal per column (db/queries/snapshot-store.ts). Whatever the
 * service
 * sends must come back exactly: text with quotes, backslashes, braces, commas, the word NULL, empty strings; amounts
 * as the decimal text sent; JSON objects and arrays.
 */

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase({ migrate: false });
});
afterAll(async () => t?.drop());

/** `back` turns each element `v` back into text. */
async function roundTrip(values: (string | null)[], type: string, back = "v::text"): Promise<(string | null)[]> {
  const result = await sql<{ value: string | null }>`select ${sql.raw(back)} as value
    from unnest(${arrayLiteral(values)}::${sql.raw(type)}[]) with ordinality as u(v, n) order by n`.execute(t.db);
  return result.rows.map((row) => row.value);
}

describe("snapshot storage", () => {
  it("reads back every text element exactly, nulls as nulls", async () => {
    const values = [
      'say "hi"',
      "back\\slash",
      '\\"',
      "{braces}",
      "a,b",
      "NULL",
      "null",
      "nUlL",
      "NULLS",
      "plain",
      "a}",
      "{",
      "",
      " padded ",
      "ünïcødé ✓",
      "tab\there",
      "line\nbreak",
      null,
    ];
    expect(await roundTrip(values, "text")).toEqual(values);
  });

  it("keeps amounts as the decimal text sent, never through a float", async () => {
    const amounts = ["0.10", "12345678901234567890.12", "-0.01", "1.005", "0.00", null];
    expect(await roundTrip(amounts, "numeric")).toEqual(amounts);
  });

  it("stores JSON objects and arrays as JSON values", async () => {
    const documents = [
      JSON.stringify({ rail: "card", note: 'a "quoted" \\ value' }),
      JSON.stringify([1, { a: [] }]),
      JSON.stringify("text"),
      null,
    ];
    const back = await roundTrip(documents, "jsonb");
    expect(back.map((text) => (text === null ? null : (JSON.parse(text) as unknown)))).toEqual(
      documents.map((text) => (text === null ? null : (JSON.parse(text) as unknown))),
    );
  });

  it("reads instants, integers and flags with their own types", async () => {
    expect(
      await roundTrip(
        ["2026-03-01T12:00:00Z", "2026-03-01T12:00:00.250+02:00", null],
        "timestamptz",
        "(v at time zone 'UTC')::text",
      ),
    ).toEqual(["2026-03-01 12:00:00", "2026-03-01 10:00:00.25", null]);
    expect(await roundTrip(["9007199254740993", "-1", null], "bigint")).toEqual(["9007199254740993", "-1", null]);
    expect(await roundTrip(["true", "false", null], "boolean")).toEqual(["true", "false", null]);
  });

  it("reads instants back as formatInstant writes them, for drift to compare", async () => {
    const instants = [
      "2026-03-01T00:00:00Z",
      "2026-03-01T12:34:56.250Z",
      "2026-12-31T23:59:59.001Z",
      "2024-02-29T00:00:00.999Z",
    ];
    for (const text of instants) {
      const result = await sql<{
        at: string;
      }>`select ${instantText("at")} from (select ${text}::timestamptz as at) as t`.execute(t.db);
      expect(result.rows[0]?.at).toBe(formatInstant(new Date(text)));
    }
  });
});
