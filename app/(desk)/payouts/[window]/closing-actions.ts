"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction, redrawnOnConflict } from "@/lib/actions";
import { closeWindow, reopenWindow } from "@/lib/accounting/close";
import { closingReasonSchema } from "@/lib/accounting/schemas";
import { AppError } from "@/lib/errors";
import { requireSelectedGame } from "@/lib/games/games";
import { parseWindowKey, windowLabel } from "@/lib/payouts/window-key";

const closingSchema = z.object({ window: z.string().min(1).max(100), reason: closingReasonSchema });

function changeClosingAction(name: string, close: boolean) {
  return defineAction({ name, role: "finance", input: closingSchema }, async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const window = parseWindowKey(input.window);
    if (!window) throw new AppError("INVALID_INPUT", "That is not a window.", { field: "window" });
    const params = { gameId: game.id, window, reason: input.reason };
    const acting = { actor: { id: user.id, email: user.email }, via: "web" as const };
    await redrawnOnConflict("/payouts", () =>
      close ? closeWindow(db, params, acting) : reopenWindow(db, params, acting),
    );
    revalidatePath("/payouts", "layout");
    return {
      ok: true,
      message: close
        ? `${windowLabel(window)} is closed: no new payout batch for it. ` +
          "Later refunds arrive as reversals in later windows."
        : `${windowLabel(window)} is open again.`,
    };
  });
}

export const closeWindowAction = changeClosingAction("closeWindow", true);
export const reopenWindowAction = changeClosingAction("reopenWindow", false);
