import "server-only";
import { randomUUID } from "node:crypto";
import type { Db } from "@/db";
import {
  getPayeeThreshold,
  listPayeeTotals,
  pagePayeeTotals,
  type PayeeTotalRow,
  upsertPayeeThreshold,
} from "@/db/queries/accounting";
import { lockForTransaction } from "@/db/queries/locks";
import { listProfiles, type ProfileRow } from "@/db/queries/profiles";
import { findGame } from "@/db/queries/games";
import type { ActingAs } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { type AuditedCsv, startAuditedCsv } from "@/lib/exports/audited";
import type { ExportColumn, ExportRow } from "@/lib/exports/csv";
import { money } from "@/lib/money";

/**
 * Year-end payee totals: per recipient and calendar year, what was paid (by payment date), net of returned
 * payments, beside the tax form on file and whether the net reaches the year's reporting threshold.
 *
 * The tax form on file is the recipient's payout profile's: its name ("W-9"), with "(expired YYYY-MM-DD)" when it
 * expired before the year ended, "none" when the profile says so, and "unknown" without a profile.
 */

export const TAX_FORM_UNKNOWN = "unknown";

function taxFormOnFile(profile: ProfileRow | undefined, year: number): string {
  if (!profile) return TAX_FORM_UNKNOWN;
  if (profile.taxForm === "none") return "none";
  const expires = profile.taxFormExpiresOn ?? undefined;
  return expires !== undefined && expires < `${year}-12-31`
    ? `${profile.taxForm} (expired ${expires})`
    : profile.taxForm;
}

export type PayeeTotal = PayeeTotalRow & {
  taxFormOnFile: string;
  /** "yes" / "no", or "no threshold set" while the year has none. */
  reachesThreshold: "yes" | "no" | "no threshold set";
};

export type PayeeTotals = { year: number; thresholdUsd: string | null; rows: PayeeTotal[] };

export async function readPayeeTotals(db: Db, params: { gameId: string; year: number }): Promise<PayeeTotals> {
  const [rows, threshold, profiles] = await Promise.all([
    listPayeeTotals(db, params),
    getPayeeThreshold(db, params),
    listProfiles(db, params),
  ]);
  const thresholdUsd = threshold?.amountUsd ?? null;
  return { year: params.year, thresholdUsd, rows: withTaxForms(rows, profiles, params.year, thresholdUsd) };
}

/**
 * One page of the year's payee totals (by recipient, `limit` from `offset`, past the end the last page), with how many
 * recipients the year has and how many reach its threshold: what the page shows of a year too long to read whole.
 */
export async function readPayeeTotalsPage(
  db: Db,
  params: { gameId: string; year: number; offset: number; limit: number },
): Promise<PayeeTotals & { total: number; reaching: number; offset: number }> {
  const thresholdUsd = (await getPayeeThreshold(db, params))?.amountUsd ?? null;
  const page = await pagePayeeTotals(db, { ...params, thresholdUsd });
  const playerIds = page.rows.map((r) => r.recipientPlayerId);
  const profiles = playerIds.length > 0 ? await listProfiles(db, { gameId: params.gameId, playerIds }) : [];
  return {
    ...page,
    year: params.year,
    thresholdUsd,
    rows: withTaxForms(page.rows, profiles, params.year, thresholdUsd),
  };
}

function withTaxForms(
  rows: readonly PayeeTotalRow[],
  profiles: readonly ProfileRow[],
  year: number,
  thresholdUsd: string | null,
): PayeeTotal[] {
  const profileOf = new Map(profiles.map((p) => [String(p.playerId), p]));
  const limit = thresholdUsd === null ? null : money(thresholdUsd);
  return rows.map((r) => ({
    ...r,
    taxFormOnFile: taxFormOnFile(profileOf.get(r.recipientPlayerId), year),
    reachesThreshold: limit === null ? "no threshold set" : money(r.netUsd).gte(limit) ? "yes" : "no",
  }));
}

/** Sets the reporting threshold of a calendar year (the same for every game), audited. */
export async function setPayeeThreshold(
  db: Db,
  params: { year: number; amountUsd: string },
  acting: ActingAs,
): Promise<{ year: number; amountUsd: string; before: string | null }> {
  return db.transaction().execute(async (trx) => {
    // One change of a year's threshold at a time: each audit line's "before" is what that change replaced.
    await lockForTransaction(trx, `payee-threshold|${params.year}`);
    const before = await upsertPayeeThreshold(trx, { ...params, byEmail: acting.actor?.email ?? null });
    await recordAudit(trx, {
      actor: acting.actor,
      via: acting.via,
      action: "accounting.payee_threshold",
      target: String(params.year),
      outcome: "succeeded",
      detail: { year: params.year, amount_usd: params.amountUsd, before },
    });
    return { ...params, before };
  });
}

export const PAYEE_TOTAL_COLUMNS: readonly ExportColumn[] = [
  { name: "year", type: "integer", description: "The calendar year of the payment dates." },
  { name: "recipient_player_id", type: "integer", description: "The recipient." },
  {
    name: "recipient_name",
    type: "text",
    description: "Name on the latest payment of the year (empty when unresolved).",
  },
  { name: "recipient_email", type: "text", description: "Email on the latest payment of the year." },
  { name: "payments", type: "integer", description: "Payments made in the year that did not come back." },
  { name: "paid_usd", type: "decimal", description: "Paid in the year, by payment date." },
  {
    name: "returned_usd",
    type: "decimal",
    description: "Payments made in the year that came back (whenever the return was recorded).",
  },
  { name: "net_paid_usd", type: "decimal", description: "paid − returned." },
  {
    name: "tax_form_on_file",
    type: "text",
    description:
      'The tax form on the payout profile ("W-9", "W-8BEN (expired 2026-06-30)", "none"; "unknown" without one).',
  },
  { name: "threshold_usd", type: "decimal", description: "The year's reporting threshold (empty when none is set)." },
  {
    name: "reaches_threshold",
    type: "text",
    description: 'yes when net paid is at least the threshold, no, or "no threshold set".',
  },
];

function rowOf(totals: PayeeTotals, r: PayeeTotal): ExportRow {
  return {
    year: String(totals.year),
    recipient_player_id: r.recipientPlayerId,
    recipient_name: r.name,
    recipient_email: r.email,
    payments: String(r.payments),
    paid_usd: r.paidUsd,
    returned_usd: r.returnedUsd,
    net_paid_usd: r.netUsd,
    tax_form_on_file: r.taxFormOnFile,
    threshold_usd: totals.thresholdUsd,
    reaches_threshold: r.reachesThreshold,
  };
}

export function payeeTotalsFilename(gameId: string, year: number): string {
  return `${gameId.replace(/[^A-Za-z0-9-]+/g, "-").slice(0, 60)}_payee-totals_${year}.csv`;
}

/** The payee totals of a game and year as a CSV download, audited like every export. */
export async function startPayeeTotalsExport(
  db: Db,
  params: { gameId: string; year: number; bom: boolean },
  acting: ActingAs,
): Promise<AuditedCsv & { exportId: string; filename: string }> {
  // A game mistyped on the command line would otherwise export a year in which nobody was paid.
  if (!(await findGame(db, params.gameId)))
    throw new AppError("NOT_FOUND", `No game ${params.gameId}.`, { field: "game" });
  const totals = await readPayeeTotals(db, params);
  const exportId = randomUUID();
  const filename = payeeTotalsFilename(params.gameId, params.year);
  async function* pages() {
    yield totals.rows.map((r) => rowOf(totals, r));
  }
  const csv = await startAuditedCsv(db, {
    columns: PAYEE_TOTAL_COLUMNS,
    pages: pages(),
    bom: params.bom,
    audit: {
      ...acting,
      action: "export.payee-totals",
      gameId: params.gameId,
      target: String(params.year),
      id: exportId,
    },
    detail: { kind: "payee-totals", via: acting.via, year: params.year, filename, bom: params.bom },
  });
  return { ...csv, exportId, filename };
}
