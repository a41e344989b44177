import "server-only";
import { NoResultError } from "kysely";
import { z } from "zod";
import type { Db } from "@/db";
import { mergeGameSettings, readGameSettings } from "@/db/queries/games";
import type { ActingAs } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";

/**
 * The order QuickBooks Online reads a date in: its importer takes dates in the company's own format, month first in
 * a US company, day first in a UK, Canadian or Australian one. 04/03/2026 is 3 April to the first and 4 March to the
 * second, and a day above 12 is refused: the journal file writes dates in the order the company set here.
 */
export const QUICKBOOKS_DATE_ORDERS = ["mdy", "dmy"] as const;
export type QuickbooksDateOrder = (typeof QUICKBOOKS_DATE_ORDERS)[number];

export const QUICKBOOKS_DATE_ORDER_LABELS: Record<QuickbooksDateOrder, string> = {
  mdy: "MM/DD/YYYY (month first: companies in the United States)",
  dmy: "DD/MM/YYYY (day first: the United Kingdom, Canada, Australia and most others)",
};

export const quickbooksDateOrderSchema = z.enum(QUICKBOOKS_DATE_ORDERS, { message: "must be mdy or dmy" });

const SETTING = "quickbooksDateOrder";

/** The game's QuickBooks date order; month first until an admin sets it. */
export async function readQuickbooksDateOrder(db: Db, gameId: string): Promise<QuickbooksDateOrder> {
  const parsed = quickbooksDateOrderSchema.safeParse((await readGameSettings(db, gameId))[SETTING]);
  return parsed.success ? parsed.data : "mdy";
}

/** Sets it for a game, audited with the order it replaced. */
export async function setQuickbooksDateOrder(
  db: Db,
  params: { gameId: string; order: QuickbooksDateOrder },
  acting: ActingAs,
): Promise<{ order: QuickbooksDateOrder; changed: boolean }> {
  return db.transaction().execute(async (trx) => {
    // No such game reads as none; any other failure (a lost connection) is the failure it is.
    const settings = await readGameSettings(trx, params.gameId, { lock: true }).catch((error: unknown) => {
      if (error instanceof NoResultError) return null;
      throw error;
    });
    if (!settings) throw new AppError("NOT_FOUND", `No game ${params.gameId}.`, { field: "game" });
    const parsed = quickbooksDateOrderSchema.safeParse(settings[SETTING]);
    const before = parsed.success ? parsed.data : "mdy";
    const changed = before !== params.order;
    if (changed) await mergeGameSettings(trx, params.gameId, { [SETTING]: params.order });
    await recordAudit(trx, {
      ...acting,
      action: "accounting.quickbooks_date_order",
      gameId: params.gameId,
      target: params.gameId,
      outcome: changed ? "succeeded" : "unchanged",
      detail: { from: before, to: params.order },
    });
    return { order: params.order, changed };
  });
}
