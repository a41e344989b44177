import "server-only";
import { type RawBuilder, sql } from "kysely";

/**
 * Cells are made text by PostgreSQL itself: `numeric::text` is the exact decimal as stored, and instants are
 * formatted in UTC there, so the export never parses a value into a JS number or Date and back.
 */

/** The exact decimal text of a numeric column ("12.30", "-0.35"). */
export function decimalText(ref: string): RawBuilder<string | null> {
  return sql<string | null>`(${sql.ref(ref)})::text`;
}

/** An integer or bigint column as digits. */
export function integerText(ref: string): RawBuilder<string | null> {
  return sql<string | null>`(${sql.ref(ref)})::text`;
}

export function booleanText(ref: string): RawBuilder<string | null> {
  return sql<string | null>`case when ${sql.ref(ref)} then 'true' when not ${sql.ref(ref)} then 'false' end`;
}

/**
 * ISO 8601 in UTC with a Z: "2026-03-01T00:00:00Z", with fractional seconds only when there are any
 * ("2026-03-01T00:00:00.25Z"), like lib/time.ts formatInstant. Null stays null.
 */
export function instantText(ref: string): RawBuilder<string | null> {
  return sql<string | null>`rtrim(rtrim(to_char(${sql.ref(ref)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '0'), '.') || 'Z'`;
}
