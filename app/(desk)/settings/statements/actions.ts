"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { saveStatementSettings, statementSettingsSchema } from "@/lib/statements/settings";

export const saveStatementSettingsAction = defineAction(
  {
    name: "saveStatementSettings",
    role: "admin",
    input: z.object({
      studioName: statementSettingsSchema.shape.studioName,
      studioAddress: statementSettingsSchema.shape.studioAddress,
      linkDays: z
        .string()
        .trim()
        .regex(/^\d{1,3}$/, { message: "must be a whole number of days", abort: true })
        .transform(Number)
        .pipe(z.number().int().min(1, { message: "must be at least 1 day" }).max(365, { message: "at most 365" })),
      drawn: z.string().max(1_000, { message: "is not what the page sent" }),
    }),
  },
  async (input, { user }) => {
    await saveStatementSettings(getDb(), input, { actor: { id: user.id, email: user.email }, via: "web" });
    revalidatePath("/settings/statements");
    return {
      ok: true,
      message:
        `Saved. Statements rendered from now on name ${input.studioName}; ` +
        `links emailed from now on last ${input.linkDays} days.`,
    };
  },
);
