"use server";

import { revalidatePath } from "next/cache";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { requireTaxFormSchema } from "@/lib/profiles/schemas";
import { saveProfileSettings } from "@/lib/profiles/settings";

export const saveProfileSettingsAction = defineAction(
  { name: "saveProfileSettings", role: "admin", input: requireTaxFormSchema },
  async (input, { user }) => {
    const settings = await saveProfileSettings(
      getDb(),
      { requireTaxForm: input.requireTaxForm === "on" },
      { actor: user, via: "web" },
    );
    revalidatePath("/settings/payouts");
    revalidatePath("/payouts", "layout");
    return {
      ok: true,
      message: settings.requireTaxForm
        ? "Saved: a recipient without a valid tax form on file is flagged and cannot be approved until overridden."
        : "Saved: no tax form is required.",
    };
  },
);
