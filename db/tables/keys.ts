import type { ColumnType } from "kysely";

/**
 * Which key the sealed columns are sealed with: a public id and a fingerprint (an HMAC of a fixed label under a key
 * derived from it), never the key. One row, written when the first secret is sealed and by each key rotation.
 */
export type KeyCheckTable = {
  id: ColumnType<boolean, boolean | undefined, never>;
  key_id: string;
  fingerprint: string;
  created_at: ColumnType<Date, Date | undefined, Date>;
  rotated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
};

export type KeyTables = {
  key_check: KeyCheckTable;
};
