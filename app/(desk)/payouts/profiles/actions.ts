"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { countOf } from "@/lib/format";
import { requireSelectedGame } from "@/lib/games/games";
import { IMPORT_LIMITS } from "@/lib/import-limits";
import { readPayoutSettings } from "@/lib/payouts/settings";
import { importProfiles } from "@/lib/profiles/bulk";

export const importProfilesAction = defineAction(
  {
    name: "importProfiles",
    role: "finance",
    input: z.object({
      csv: z
        .string({ message: "choose a CSV file" })
        .min(1, { message: "choose a CSV file" })
        .max(IMPORT_LIMITS.profiles.chars, { message: IMPORT_LIMITS.profiles.message }),
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
    const changes = countOf(result.changes.length, "change");
    const rows = countOf(result.rows, "row");
    const refused = result.refused.length;
    const fix = `Fix ${refused === 1 ? "it" : "them"}, then import.`;
    const reviewer = (await readPayoutSettings(db)).twoPersonRule ? "a second finance user's" : "a finance user's";
    const awaiting = pending ? `, ${pending} awaiting ${reviewer} review (listed under Waiting for review)` : "";
    const message = result.dryRun
      ? `Dry run: ${changes} and ${countOf(refused, "refused row")} in ${rows}. Nothing was changed.`
      : result.applied
        ? `Imported: ${changes} from ${rows}${awaiting}.`
        : `Nothing was imported: ${countOf(refused, "row")} refused. ${fix}`;
    // Refused rows are an answer, not a failure: the form lists each with its reason.
    return { ok: true, message, data: result };
  },
);
