"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { requireSelectedGame } from "@/lib/games/games";
import { importProfiles } from "@/lib/profiles/bulk";

export const importProfilesAction = defineAction(
  {
    name: "importProfiles",
    role: "finance",
    input: z.object({
      csv: z
        .string({ message: "choose a CSV file" })
        .min(1, { message: "choose a CSV file" })
        .max(2_000_000, { message: "must be under 2 MB" }),
      mode: z.enum(["dry_run", "apply"], { message: "must be a dry run or apply" }),
    }),
  },
  async ({ csv, mode }, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await importProfiles(
      db,
      { gameId: game.id, csv, dryRun: mode === "dry_run" },
      { actor: user, role: user.role, via: "web" },
    );
    if (result.applied) revalidatePath("/recipients", "layout");
    const pending = result.changes.filter((c) => c.effect === "pending").length;
    const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
    const changes = count(result.changes.length, "change");
    const refused = result.refused.length;
    const awaiting = pending ? `, ${pending} awaiting a second finance user's review` : "";
    const message = result.dryRun
      ? `Dry run: ${changes} and ${count(refused, "refused row")} in ${count(result.rows, "row")}. Nothing was changed.`
      : result.applied
        ? `Imported: ${changes} from ${count(result.rows, "row")}${awaiting}.`
        : `Nothing was imported: ${count(refused, "row")} refused. Fix ${refused === 1 ? "it" : "them"}, then import.`;
    // Refused rows are an answer, not a failure: the form lists each with its reason.
    return { ok: true, message, data: result };
  },
);
