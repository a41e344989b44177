import "server-only";
import { createHash } from "node:crypto";
import type { Compilable } from "kysely";
import type { CustomTypesConfig } from "pg";
import { type Db, poolOf } from "@/db";
import { ExportValueError } from "./csv";

const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?$/;

/**
 * "2026-03-01 00:00:02.6" to "2026-03-01T00:00:02.6Z". Only the ISO DateStyle (PostgreSQL's default, and what
 * node-postgres needs to read dates at all) gives that shape; any other is refused rather than written.
 */
export function utcTimestampToInstant(text: string): string {
  if (!UTC_TIMESTAMP.test(text)) {
    throw new ExportValueError(
      `the database wrote an instant as ${JSON.stringify(text.slice(0, 40))}; set its DateStyle to ISO`,
    );
  }
  return `${text.slice(0, 10)}T${text.slice(11)}Z`;
}

/** Every column arrives as the text PostgreSQL sent: nothing is parsed into a JS number or Date. */
export const AS_TEXT: CustomTypesConfig = {
  getTypeParser: (() => (value: string) => value) as CustomTypesConfig["getTypeParser"],
};

const statementNames = new Map<string, string>();

/** A prepared statement's name derived from its text, so one name never stands for two statements. */
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `payout_desk_export_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * Runs a query whose columns are all text and returns its rows as arrays of cells in the select's order. It runs
 * as a named prepared statement (planned once per connection), and arrays cost less than one object per row: the
 * difference shows over a million export lines.
 */
export async function queryCells(db: Db, query: Compilable<unknown>): Promise<(string | null)[][]> {
  const { sql: text, parameters } = query.compile();
  const result = await poolOf(db).query<(string | null)[]>({
    name: statementName(text),
    text,
    values: parameters as unknown[],
    rowMode: "array",
    types: AS_TEXT,
  });
  return result.rows;
}
