import "server-only";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db";
import type { PayoutStatementState } from "@/db/tables/payouts";
import type { PayoutMethod, ProfileChangeStatus, TaxForm } from "@/db/tables/profiles";
import { dateText, lastPaidAt, payoutMethodOf } from "./profiles";

/** Every change of a payout profile: entered, applied or waiting for review, and how each review ended. */

// --- Changes ------------------------------------------------------------------------------------------------------

export type ProfileChangeRow = {
  id: string;
  playerId: number;
  kind: "details" | "tax_form";
  status: ProfileChangeStatus;
  method: PayoutMethod | null;
  currency: string | null;
  detailsMasked: string | null;
  previousMasked: string | null;
  /** The names of the details' fields the change alters, when known (db/tables/profiles.ts). */
  changedFields: string[] | null;
  taxForm: TaxForm | null;
  taxFormReceivedOn: string | null;
  taxFormExpiresOn: string | null;
  enteredById: string | null;
  enteredByEmail: string | null;
  enteredVia: "web" | "cli" | "job";
  enteredAt: Date;
  reviewedByEmail: string | null;
  reviewedAt: Date | null;
  reviewNote: string | null;
};

export async function insertProfileChange(
  db: DbOrTrx,
  p: {
    gameId: string;
    playerId: number;
    kind: "details" | "tax_form";
    status: ProfileChangeStatus;
    method?: PayoutMethod;
    currency?: string;
    masked?: string;
    previousMasked?: string | null;
    changedFields?: string[] | null;
    taxForm?: TaxForm;
    taxFormReceivedOn?: string | null;
    taxFormExpiresOn?: string | null;
    actor: { id: string; email: string } | null;
    via: "web" | "cli" | "job";
    at: Date;
  },
): Promise<{ id: string; sealRef: string }> {
  const row = await db
    .insertInto("payout_profile_change")
    .values({
      game_id: p.gameId,
      player_id: p.playerId,
      kind: p.kind,
      status: p.status,
      method: p.method ?? null,
      currency: p.currency ?? null,
      details_masked: p.masked ?? null,
      previous_masked: p.previousMasked ?? null,
      changed_fields: p.changedFields ?? null,
      tax_form: p.taxForm ?? null,
      tax_form_received_on: p.taxFormReceivedOn ?? null,
      tax_form_expires_on: p.taxFormExpiresOn ?? null,
      entered_by_id: p.actor?.id ?? null,
      entered_by_email: p.actor?.email ?? null,
      entered_via: p.via,
      entered_at: p.at,
    })
    .returning(["id", "seal_ref"])
    .executeTakeFirstOrThrow();
  return { id: row.id, sealRef: row.seal_ref };
}

export async function setChangeSealed(db: DbOrTrx, p: { changeId: string; sealed: string }): Promise<void> {
  await db
    .updateTable("payout_profile_change")
    .set({ details_sealed: p.sealed })
    .where("id", "=", p.changeId)
    .execute();
}

/** Closes a pending change; its sealed details are dropped whatever the outcome (applied ones live on the profile). */
export async function closeProfileChange(
  db: DbOrTrx,
  p: {
    changeId: string;
    status: "approved" | "rejected" | "superseded";
    reviewer: { id: string; email: string } | null;
    via: "web" | "cli" | "job" | null;
    note: string | null;
    at: Date;
  },
): Promise<void> {
  await db
    .updateTable("payout_profile_change")
    .set({
      status: p.status,
      details_sealed: null,
      reviewed_by_id: p.reviewer?.id ?? null,
      reviewed_by_email: p.reviewer?.email ?? null,
      reviewed_via: p.via,
      reviewed_at: p.at,
      review_note: p.note,
    })
    .where("id", "=", p.changeId)
    .where("status", "=", "pending")
    .execute();
}

const CHANGE_COLUMNS = [
  "id",
  "player_id",
  "kind",
  "status",
  "method",
  "currency",
  "details_masked",
  "previous_masked",
  "changed_fields",
  "tax_form",
  dateText("tax_form_received_on"),
  dateText("tax_form_expires_on"),
  "entered_by_id",
  "entered_by_email",
  "entered_via",
  "entered_at",
  "reviewed_by_email",
  "reviewed_at",
  "review_note",
] as const;

type RawChange = {
  id: string;
  player_id: string;
  kind: "details" | "tax_form";
  status: ProfileChangeStatus;
  method: PayoutMethod | null;
  currency: string | null;
  details_masked: string | null;
  previous_masked: string | null;
  changed_fields: string[] | null;
  tax_form: TaxForm | null;
  tax_form_received_on: string | null;
  tax_form_expires_on: string | null;
  entered_by_id: string | null;
  entered_by_email: string | null;
  entered_via: "web" | "cli" | "job";
  entered_at: Date;
  reviewed_by_email: string | null;
  reviewed_at: Date | null;
  review_note: string | null;
};

function toChange(r: RawChange): ProfileChangeRow {
  return {
    id: r.id,
    playerId: Number(r.player_id),
    kind: r.kind,
    status: r.status,
    ...payoutMethodOf(r),
    previousMasked: r.previous_masked,
    changedFields: r.changed_fields,
    taxForm: r.tax_form,
    taxFormReceivedOn: r.tax_form_received_on,
    taxFormExpiresOn: r.tax_form_expires_on,
    enteredById: r.entered_by_id,
    enteredByEmail: r.entered_by_email,
    enteredVia: r.entered_via,
    enteredAt: r.entered_at,
    reviewedByEmail: r.reviewed_by_email,
    reviewedAt: r.reviewed_at,
    reviewNote: r.review_note,
  };
}

export async function getPendingChange(
  db: DbOrTrx,
  p: { gameId: string; playerId: number; lock?: boolean },
): Promise<(ProfileChangeRow & { sealRef: string; sealed: string | null }) | null> {
  let query = db
    .selectFrom("payout_profile_change")
    .select([...CHANGE_COLUMNS, "seal_ref", "details_sealed"])
    .where("game_id", "=", p.gameId)
    .where("player_id", "=", String(p.playerId))
    .where("status", "=", "pending");
  if (p.lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? { ...toChange(row), sealRef: row.seal_ref, sealed: row.details_sealed } : null;
}

export async function listProfileChanges(
  db: DbOrTrx,
  p: { gameId: string; playerId?: number; status?: ProfileChangeStatus; limit?: number },
): Promise<ProfileChangeRow[]> {
  let query = db.selectFrom("payout_profile_change").select(CHANGE_COLUMNS).where("game_id", "=", p.gameId);
  if (p.playerId !== undefined) query = query.where("player_id", "=", String(p.playerId));
  if (p.status) query = query.where("status", "=", p.status);
  const rows = await query
    .orderBy("entered_at", "desc")
    .orderBy("id")
    .limit(p.limit ?? 200)
    .execute();
  return rows.map(toChange);
}

/** Who entered a change of payout details (null: a job, or no such change of the game). */
export async function getChangeEnteredBy(db: DbOrTrx, p: { gameId: string; changeId: string }): Promise<string | null> {
  const row = await db
    .selectFrom("payout_profile_change")
    .select("entered_by_id")
    .where("game_id", "=", p.gameId)
    .where("id", "=", p.changeId)
    .executeTakeFirst();
  return row?.entered_by_id ?? null;
}

/**
 * Recipients with a statement of the batch in one of `states` and something to pay whose details in force are still
 * their first (applied at once: status 'applied'), entered by `enteredBy`, and that no payment has gone to yet (applied
 * after the recipient was last paid, `lastPaidAt`, or never paid: as ProfileFlagFacts and detailsNotPaidYet count it).
 * At most `limit`, by player id; only among `recipientPlayerIds` when given.
 */
export async function listOwnFirstDetails(
  db: DbOrTrx,
  p: {
    gameId: string;
    batchId: string;
    enteredBy: string;
    states: readonly PayoutStatementState[];
    recipientPlayerIds?: readonly number[];
    limit: number;
  },
): Promise<number[]> {
  const result = await sql<{ player_id: string }>`
    select s.recipient_player_id::text as player_id
    from payout_profile_change c
    join payout_profile pp on pp.game_id = c.game_id and pp.player_id = c.player_id and pp.details_change_id = c.id
    join payout_statement s on s.game_id = c.game_id and s.recipient_player_id = c.player_id
    where c.game_id = ${p.gameId} and c.entered_by_id = ${p.enteredBy} and c.status = 'applied'
      and pp.details_version = 1 and pp.method is not null and pp.details_applied_at is not null
      and s.batch_id = ${p.batchId} and s.state = any(${[...p.states]}) and s.payable_usd > 0
      ${p.recipientPlayerIds === undefined ? sql`` : sql`and s.recipient_player_id = any(${[...p.recipientPlayerIds]})`}
      and not coalesce(${lastPaidAt} >= pp.details_applied_at, false)
    order by s.recipient_player_id
    limit ${p.limit}`.execute(db);
  return result.rows.map((r) => Number(r.player_id));
}
