import type { ColumnType, Generated } from "kysely";
import type { BigIntId, CreatedAt, NullableTimestamp } from "./columns";

// --- Payout profiles (db/migrations/2026_11_24_1300_payout_profiles.ts) --------------------------------------------

export type PayoutMethod = "paypal" | "wise" | "bank_transfer" | "manual";
export type TaxForm = "W-9" | "W-8BEN" | "W-8BEN-E" | "none";
export type ProfileChangeKind = "details" | "tax_form";
export type ProfileChangeStatus = "applied" | "pending" | "approved" | "rejected" | "superseded";
/** A UTC date, "2026-04-03"; written as text, read back as a Date at midnight UTC. */
type DateColumn = ColumnType<Date | null, string | null | undefined, string | null>;

export type PayoutProfileTable = {
  game_id: string;
  player_id: BigIntId;
  seal_ref: ColumnType<string, never, never>;
  method: PayoutMethod | null;
  currency: string | null;
  details_sealed: string | null;
  details_masked: string | null;
  details_change_id: string | null;
  details_version: Generated<number>;
  details_applied_at: NullableTimestamp;
  tax_form: Generated<TaxForm>;
  tax_form_received_on: DateColumn;
  tax_form_expires_on: DateColumn;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
};

export type PayoutProfileChangeTable = {
  id: Generated<string>;
  game_id: string;
  player_id: BigIntId;
  seal_ref: ColumnType<string, never, never>;
  kind: ProfileChangeKind;
  status: ProfileChangeStatus;
  method: PayoutMethod | null;
  currency: string | null;
  details_sealed: string | null;
  details_masked: string | null;
  previous_masked: string | null;
  /** The names of the details' fields the change alters (never their values); null for tax forms, first details. */
  changed_fields: string[] | null;
  tax_form: TaxForm | null;
  tax_form_received_on: DateColumn;
  tax_form_expires_on: DateColumn;
  entered_by_id: string | null;
  entered_by_email: string | null;
  entered_via: "web" | "cli" | "job";
  entered_at: CreatedAt;
  reviewed_by_id: string | null;
  reviewed_by_email: string | null;
  reviewed_via: "web" | "cli" | "job" | null;
  reviewed_at: NullableTimestamp;
  review_note: string | null;
};

export type ProfileTables = {
  payout_profile: PayoutProfileTable;
  payout_profile_change: PayoutProfileChangeTable;
};
