"use server";

import { revalidatePath } from "next/cache";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { ACCOUNT_LABELS, mapAccount } from "@/lib/accounting/accounts";
import { mapAccountSchema } from "@/lib/accounting/schemas";
import { requireSelectedGame } from "@/lib/games/games";

export const mapAccountAction = defineAction(
  { name: "mapAccount", role: "admin", input: mapAccountSchema },
  async (input, { user }) => {
    const db = getDb();
    // The selected game's accounts, whatever the form says (the expected-game field guards a switch meanwhile).
    const game = await requireSelectedGame(db, user);
    const mapped = await mapAccount(
      db,
      { gameId: game.id, account: input.account, code: input.code, taxRate: input.taxRate },
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
