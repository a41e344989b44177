import "server-only";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db";
import type { PayoutMethod, TaxForm } from "@/db/tables/profiles";
import { anyOf } from "./chunks";

/** A profile as pages and rules read it: never the sealed details. */
export type ProfileRow = {
  gameId: string;
  playerId: number;
  /** What the details' seal is bound to (lib/keys/sealed-columns.ts). */
  sealRef: string;
  method: PayoutMethod | null;
  currency: string | null;
  detailsMasked: string | null;
  detailsChangeId: string | null;
  detailsVersion: number;
  detailsAppliedAt: Date | null;
  taxForm: TaxForm;
  taxFormReceivedOn: string | null;
  taxFormExpiresOn: string | null;
  updatedAt: Date;
};

/** A `date` column as "2026-04-03" (pg would read it as a Date at the server's local midnight), named `alias`. */
export function dateText<C extends string, A extends string = C>(column: C, alias?: A) {
  return sql<string | null>`to_char(${sql.ref(column)}, 'YYYY-MM-DD')`.as((alias ?? column) as A);
}

const PROFILE_COLUMNS = [
  "game_id",
  "player_id",
  "seal_ref",
  "method",
  "currency",
  "details_masked",
  "details_change_id",
  "details_version",
  "details_applied_at",
  "tax_form",
  dateText("tax_form_received_on"),
  dateText("tax_form_expires_on"),
  "updated_at",
] as const;

type RawProfile = {
  game_id: string;
  player_id: string;
  seal_ref: string;
  method: PayoutMethod | null;
  currency: string | null;
  details_masked: string | null;
  details_change_id: string | null;
  details_version: number;
  details_applied_at: Date | null;
  tax_form: TaxForm;
  tax_form_received_on: string | null;
  tax_form_expires_on: string | null;
  updated_at: Date;
};

/** How a profile, or a change to it, pays: the method, the currency and the masked details. */
export function payoutMethodOf(r: {
  method: PayoutMethod | null;
  currency: string | null;
  details_masked: string | null;
}) {
  return { method: r.method, currency: r.currency, detailsMasked: r.details_masked };
}

function toProfile(r: RawProfile): ProfileRow {
  return {
    gameId: r.game_id,
    playerId: Number(r.player_id),
    sealRef: r.seal_ref,
    ...payoutMethodOf(r),
    detailsChangeId: r.details_change_id,
    detailsVersion: r.details_version,
    detailsAppliedAt: r.details_applied_at,
    taxForm: r.tax_form,
    taxFormReceivedOn: r.tax_form_received_on,
    taxFormExpiresOn: r.tax_form_expires_on,
    updatedAt: r.updated_at,
  };
}

export async function getProfile(db: DbOrTrx, p: { gameId: string; playerId: number }): Promise<ProfileRow | null> {
  const row = await db
    .selectFrom("payout_profile")
    .select(PROFILE_COLUMNS)
    .where("game_id", "=", p.gameId)
    .where("player_id", "=", String(p.playerId))
    .executeTakeFirst();
  return row ? toProfile(row) : null;
}

/** The profile row, created empty when missing, locked for the transaction's change. */
export async function lockProfile(db: DbOrTrx, p: { gameId: string; playerId: number }): Promise<ProfileRow> {
  await db
    .insertInto("payout_profile")
    .values({ game_id: p.gameId, player_id: p.playerId })
    .onConflict((oc) => oc.columns(["game_id", "player_id"]).doNothing())
    .execute();
  const row = await db
    .selectFrom("payout_profile")
    .select(PROFILE_COLUMNS)
    .where("game_id", "=", p.gameId)
    .where("player_id", "=", String(p.playerId))
    .forUpdate()
    .executeTakeFirstOrThrow();
  return toProfile(row);
}

export async function listProfiles(
  db: DbOrTrx,
  p: { gameId: string; playerIds?: readonly string[] },
): Promise<ProfileRow[]> {
  let query = db.selectFrom("payout_profile").select(PROFILE_COLUMNS).where("game_id", "=", p.gameId);
  // Only these recipients' (a page of a list), when given.
  if (p.playerIds) query = query.where("player_id", "=", anyOf(p.playerIds, "bigint"));
  const rows = await query.orderBy("player_id").execute();
  return rows.map(toProfile);
}

/** The sealed details of some recipients, with the reference their seal is bound to. */
export async function listSealedDetails(
  db: DbOrTrx,
  p: { gameId: string; playerIds: readonly number[] },
): Promise<{ playerId: number; sealRef: string; sealed: string; method: PayoutMethod; currency: string }[]> {
  if (p.playerIds.length === 0) return [];
  const rows = await db
    .selectFrom("payout_profile")
    .select(["player_id", "seal_ref", "details_sealed", "method", "currency"])
    .where("game_id", "=", p.gameId)
    .where(
      "player_id",
      "=",
      anyOf(
        p.playerIds.map((id) => String(id)),
        "bigint",
      ),
    )
    .where("details_sealed", "is not", null)
    .execute();
  return rows.flatMap((r) =>
    r.details_sealed && r.method && r.currency
      ? [
          {
            playerId: Number(r.player_id),
            sealRef: r.seal_ref,
            sealed: r.details_sealed,
            method: r.method,
            currency: r.currency,
          },
        ]
      : [],
  );
}

export async function getSealedDetails(
  db: DbOrTrx,
  p: { gameId: string; playerId: number },
): Promise<{ sealRef: string; sealed: string } | null> {
  const [row] = await listSealedDetails(db, { gameId: p.gameId, playerIds: [p.playerId] });
  return row ? { sealRef: row.sealRef, sealed: row.sealed } : null;
}

export async function writeProfileDetails(
  db: DbOrTrx,
  p: {
    gameId: string;
    playerId: number;
    method: PayoutMethod;
    currency: string;
    sealed: string;
    masked: string;
    changeId: string;
    at: Date;
  },
): Promise<void> {
  await db
    .updateTable("payout_profile")
    .set((eb) => ({
      method: p.method,
      currency: p.currency,
      details_sealed: p.sealed,
      details_masked: p.masked,
      details_change_id: p.changeId,
      details_version: eb("details_version", "+", 1),
      details_applied_at: p.at,
      updated_at: p.at,
    }))
    .where("game_id", "=", p.gameId)
    .where("player_id", "=", String(p.playerId))
    .execute();
}

export async function writeProfileTaxForm(
  db: DbOrTrx,
  p: { gameId: string; playerId: number; taxForm: TaxForm; receivedOn: string | null; expiresOn: string | null },
): Promise<void> {
  await db
    .updateTable("payout_profile")
    .set({
      tax_form: p.taxForm,
      tax_form_received_on: p.receivedOn,
      tax_form_expires_on: p.expiresOn,
      updated_at: new Date(),
    })
    .where("game_id", "=", p.gameId)
    .where("player_id", "=", String(p.playerId))
    .execute();
}

// --- Flags --------------------------------------------------------------------------------------------------------

/**
 * When the recipient of statement `s` (profile `pp`) was last paid in another batch (ProfileFlagFacts.lastPaidAt): when
 * the payment file that paid it was written, or for a payment recorded by hand, when recorded, only if its batch was
 * approved after the details in force were applied. Null if never.
 */
export const lastPaidAt = sql<Date | null>`(select max(coalesce(
    (select max(pf.created_at) from payment_file_item i join payment_file pf on pf.id = i.file_id
      where i.game_id = paid.game_id and i.statement_id = paid.id and i.settled),
    case when (select b.approved_at from payout_batch b where b.id = paid.batch_id) > pp.details_applied_at
      then paid.closed_at end))
  from payout_statement paid
  where paid.game_id = s.game_id and paid.recipient_player_id = s.recipient_player_id
    and paid.state = 'paid' and paid.batch_id <> s.batch_id)`;

export type ProfileFlagFacts = {
  playerId: number;
  method: PayoutMethod | null;
  detailsVersion: number;
  detailsChangeId: string | null;
  detailsAppliedAt: Date | null;
  taxForm: TaxForm | null;
  taxFormExpiresOn: string | null;
  /** The change that set the form on file to none (a form withdrawn); null when none was ever recorded. */
  taxFormWithdrawnBy: string | null;
  /**
   * When the recipient was last paid in this game, if ever: when the payment file that paid it was written (with the
   * details in force then), or for a payment recorded by hand, when recorded, only if its batch was approved after the
   * details were applied (its approval saw them, and their flag); a payment by hand of a statement approved before
   * says nothing of the account the money went to, and does not count.
   */
  lastPaidAt: Date | null;
  /** When this statement's batch was approved; null while it is a draft. */
  batchApprovedAt: Date | null;
  /** The newest payment to the recipient that was rejected or came back (payment_return, not one undone), if any. */
  lastReturn: { id: string; at: Date } | null;
  /** The email on the recipient's statement in this batch (the service's player record). */
  email: string | null;
  /** The recipient's last statement email, when the mail server finally refused its address for good. */
  refusedDelivery: { statementId: string; toAddress: string; serverAnswer: string; failedAt: Date } | null;
};

/** Whether any recipient of the game has payout details: until then no recipient is flagged for lacking them. */
export async function gameUsesProfiles(db: DbOrTrx, p: { gameId: string }): Promise<boolean> {
  const row = await db
    .selectFrom("payout_profile")
    .select("player_id")
    .where("game_id", "=", p.gameId)
    .where("method", "is not", null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** What the profile flags of a batch's payable statements are worked out from. */
export async function listProfileFlagFacts(
  db: DbOrTrx,
  p: { gameId: string; batchId: string; recipientPlayerId?: number; recipientPlayerIds?: readonly number[] },
): Promise<ProfileFlagFacts[]> {
  const result = await sql<{
    player_id: string;
    method: PayoutMethod | null;
    details_version: number | null;
    details_change_id: string | null;
    details_applied_at: Date | null;
    tax_form: TaxForm | null;
    tax_form_expires_on: string | null;
    tax_form_withdrawn_by: string | null;
    last_paid_at: Date | null;
    batch_approved_at: Date | null;
    last_return_id: string | null;
    last_return_at: Date | null;
    email: string | null;
    refused_statement_id: string | null;
    refused_address: string | null;
    refused_answer: string | null;
    refused_at: Date | null;
  }>`
    select s.recipient_player_id::text as player_id, pp.method, pp.details_version, pp.details_change_id,
      pp.details_applied_at, pp.tax_form, to_char(pp.tax_form_expires_on, 'YYYY-MM-DD') as tax_form_expires_on,
      case when pp.tax_form = 'none' then (select c.id::text from payout_profile_change c
          where c.game_id = s.game_id and c.player_id = s.recipient_player_id and c.kind = 'tax_form'
          order by c.entered_at desc, c.id desc limit 1) end as tax_form_withdrawn_by,
      ${lastPaidAt} as last_paid_at,
      (select b.approved_at from payout_batch b where b.id = s.batch_id) as batch_approved_at,
      lr.id::text as last_return_id, lr.at as last_return_at, s.player_email as email,
      f.statement_id::text as refused_statement_id, f.to_address as refused_address,
      f.server_answer as refused_answer, f.failed_at as refused_at
    from payout_statement s
    left join lateral (select r.id, r.at from payment_return r
      where r.game_id = s.game_id and r.recipient_player_id = s.recipient_player_id and not r.undone
      order by r.at desc, r.id desc limit 1) lr on true
    left join payout_profile pp on pp.game_id = s.game_id and pp.player_id = s.recipient_player_id
    left join statement_delivery_failure f on f.game_id = s.game_id
      and f.recipient_player_id = s.recipient_player_id and f.refused and f.to_address is not null
    where s.game_id = ${p.gameId} and s.batch_id = ${p.batchId} and s.payable_usd > 0
      ${p.recipientPlayerId === undefined ? sql`` : sql`and s.recipient_player_id = ${p.recipientPlayerId}`}
      ${p.recipientPlayerIds === undefined ? sql`` : sql`and s.recipient_player_id = any(${[...p.recipientPlayerIds]})`}
    order by s.recipient_player_id`.execute(db);
  return result.rows.map((r) => ({
    playerId: Number(r.player_id),
    method: r.method,
    detailsVersion: r.details_version ?? 0,
    detailsChangeId: r.details_change_id,
    detailsAppliedAt: r.details_applied_at,
    taxForm: r.tax_form,
    taxFormExpiresOn: r.tax_form_expires_on,
    taxFormWithdrawnBy: r.tax_form_withdrawn_by,
    lastPaidAt: r.last_paid_at,
    batchApprovedAt: r.batch_approved_at,
    lastReturn: r.last_return_id && r.last_return_at ? { id: r.last_return_id, at: r.last_return_at } : null,
    email: r.email,
    refusedDelivery:
      r.refused_statement_id && r.refused_address && r.refused_at
        ? {
            statementId: r.refused_statement_id,
            toAddress: r.refused_address,
            serverAnswer: r.refused_answer ?? "",
            failedAt: r.refused_at,
          }
        : null,
  }));
}
