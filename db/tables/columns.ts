import type { ColumnType } from "kysely";

/** Timestamps come back as Date and may be written as Date or ISO text. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** `numeric` comes back from pg as a string and stays one (see core/money.ts). */
export type Numeric = ColumnType<string, string, string>;
export type Json<T = unknown> = ColumnType<T, string, string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
export type NullableNumeric = ColumnType<string | null, string | null, string | null>;
/** bigint ids (recipient, period) come back from pg as strings; written as numbers. */
export type BigIntId = ColumnType<string, number | string, number | string>;
