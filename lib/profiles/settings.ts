import "server-only";
import { z } from "zod";
import type { Db } from "@/db";
import { readAppSetting, writeAppSetting } from "@/db/queries/app-settings";
import { lockForTransaction } from "@/db/queries/locks";
import type { Actor, Via } from "@/core/actor";
import { recordAudit } from "@/lib/audit";

/** The app_setting row of the profile rules: whether a tax form on file is required before paying. */
export const PROFILE_SETTINGS_KEY = "profiles.settings";

export type ProfileSettings = { requireTaxForm: boolean; updatedAt: Date | null; updatedBy: string | null };

const storedSchema = z.object({ require_tax_form: z.boolean() });

export async function readProfileSettings(db: Db): Promise<ProfileSettings> {
  const row = await readAppSetting(db, PROFILE_SETTINGS_KEY);
  const parsed = storedSchema.safeParse(row?.value);
  if (!row || !parsed.success) return { requireTaxForm: false, updatedAt: null, updatedBy: null };
  return { requireTaxForm: parsed.data.require_tax_form, updatedAt: row.updatedAt, updatedBy: row.updatedBy };
}

export async function saveProfileSettings(
  db: Db,
  input: { requireTaxForm: boolean },
  acting: { actor: Actor; via: Via },
): Promise<ProfileSettings> {
  await db.transaction().execute(async (trx) => {
    // Two admins saving at once: the second reads what the first wrote, so its audit line says what it replaced.
    await lockForTransaction(trx, PROFILE_SETTINGS_KEY);
    const previous = await readProfileSettings(trx);
    await writeAppSetting(trx, {
      key: PROFILE_SETTINGS_KEY,
      value: { require_tax_form: input.requireTaxForm },
      updatedBy: acting.actor.email,
    });
    await recordAudit(trx, {
      actor: acting.actor,
      via: acting.via,
      action: "settings.profiles",
      target: PROFILE_SETTINGS_KEY,
      outcome: "succeeded",
      detail: { from: { requireTaxForm: previous.requireTaxForm }, to: { requireTaxForm: input.requireTaxForm } },
    });
  });
  return readProfileSettings(db);
}
