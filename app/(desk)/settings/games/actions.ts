"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { revokePreviousWebhookSecret, rotateWebhookSecret, saveGame } from "@/lib/games/games";
import { checkServiceAddress, gameFieldsSchema, gameIdSchema, secretSchema } from "@/lib/games/schemas";

const optionalSecret = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .pipe(secretSchema.optional());

const gameFormSchema = gameFieldsSchema
  .extend({
    webhookSecret: optionalSecret,
    webhookPreviousSecret: optionalSecret,
    replace: z.enum(["yes", "no"]).default("no"),
    changeEnvironment: z.literal("on").optional(),
  })
  .superRefine(checkServiceAddress)
  .superRefine((form, ctx) => {
    // A previous secret alone would become the current one.
    if (form.webhookPreviousSecret && !form.webhookSecret)
      ctx.addIssue({ code: "custom", path: ["webhookSecret"], message: "is needed with a previous signing secret" });
  });

export const saveGameAction = defineAction(
  { name: "saveGame", role: "admin", input: gameFormSchema },
  async (form, { user }) => {
    const db = getDb();
    const webhookSecrets = [form.webhookSecret, form.webhookPreviousSecret].filter((s): s is string => Boolean(s));
    const game = await saveGame(
      db,
      {
        id: form.id,
        name: form.name,
        environment: form.environment,
        baseUrl: form.baseUrl,
        secret: form.secret,
        webhookSecrets,
      },
      {
        replace: form.replace === "yes",
        environmentChange: form.changeEnvironment === "on",
        as: { actor: user, via: "web" },
      },
    );
    revalidatePath("/settings/games");
    const kept = form.replace === "yes" && webhookSecrets.length === 0 ? " Its webhook signing secrets are kept." : "";
    return {
      ok: true,
      message: `Saved ${game.name}. The secret is stored encrypted and shown only masked.${kept}`,
    };
  },
);

export const rotateWebhookSecretAction = defineAction(
  {
    name: "rotateWebhookSecret",
    role: "admin",
    input: z.object({ gameId: gameIdSchema, webhookSecret: secretSchema }),
  },
  async ({ gameId, webhookSecret }, { user }) => {
    const db = getDb();
    const { previousKept } = await rotateWebhookSecret(db, gameId, webhookSecret, { actor: user, via: "web" });
    revalidatePath("/settings/games");
    return {
      ok: true,
      message: previousKept
        ? "New signing secret saved; the one it replaces stays accepted for 7 days."
        : "Signing secret saved.",
    };
  },
);

export const revokePreviousWebhookSecretAction = defineAction(
  { name: "revokePreviousWebhookSecret", role: "admin", input: z.object({ gameId: gameIdSchema }) },
  async ({ gameId }, { user }) => {
    const db = getDb();
    const { revoked } = await revokePreviousWebhookSecret(db, gameId, { actor: user, via: "web" });
    revalidatePath("/settings/games");
    return {
      ok: true,
      message: revoked
        ? "The previous signing secret is no longer accepted."
        : "No previous signing secret was accepted any more: nothing changed.",
    };
  },
);
