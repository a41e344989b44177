"use server";

import { revalidatePath } from "next/cache";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { z } from "zod";
import { ACCOUNT_LABELS, mapAccount } from "@/lib/accounting/accounts";
import {
  QUICKBOOKS_DATE_ORDER_LABELS,
  quickbooksDateOrderSchema,
  setQuickbooksDateOrder,
} from "@/lib/accounting/date-order";
import { mapAccountFormSchema } from "@/lib/accounting/schemas";
import { requireSelectedGame } from "@/lib/games/games";

export const mapAccountAction = defineAction(
  { name: "mapAccount", role: "admin", input: mapAccountFormSchema },
  async (input, { user }) => {
    const db = getDb();
    // The selected game's accounts, whatever the form says (the expected-game field guards a switch meanwhile).
    const game = await requireSelectedGame(db, user);
    const mapped = await mapAccount(
      db,
      {
        gameId: game.id,
        account: input.account,
        code: input.code,
        taxRate: input.taxRate,
        drawn: { code: input.drawnCode, taxRate: input.drawnTaxRate },
      },
      { actor: { id: user.id, email: user.email }, via: "web" },
    );
    revalidatePath("/settings/accounting");
    const label = ACCOUNT_LABELS[mapped.account].label;
    return {
      ok: true,
      message: mapped.changed
        ? `${label} now posts to ${mapped.code}${mapped.taxRate ? ` (${mapped.taxRate})` : ""}.`
        : `${label} already posts to ${mapped.code}: nothing changed.`,
    };
  },
);

export const setQuickbooksDateOrderAction = defineAction(
  { name: "setQuickbooksDateOrder", role: "admin", input: z.object({ order: quickbooksDateOrderSchema }) },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const set = await setQuickbooksDateOrder(
      db,
      { gameId: game.id, order: input.order },
      { actor: { id: user.id, email: user.email }, via: "web" },
    );
    revalidatePath("/settings/accounting");
    const label = QUICKBOOKS_DATE_ORDER_LABELS[set.order].split(" (")[0];
    return {
      ok: true,
      message: set.changed
        ? `QuickBooks Online journal files write dates as ${label} from now on.`
        : `QuickBooks Online journal files already write dates as ${label}: nothing changed.`,
    };
  },
);
