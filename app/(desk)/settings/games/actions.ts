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
  })
  .superRefine(checkServiceAddress);

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
      { replace: form.replace === "yes", as: { actor: user, via: "web" } },
    );
    revalidatePath("/settings/games");
    return { ok: true, message: `Saved ${game.name}. The secret is stored encrypted and shown only masked.` };
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
    await rotateWebhookSecret(db, gameId, webhookSecret, { actor: user, via: "web" });
    revalidatePath("/settings/games");
    return { ok: true, message: "New signing secret saved; the previous one stays accepted during the rotation." };
  },
);

export const revokePreviousWebhookSecretAction = defineAction(
  { name: "revokePreviousWebhookSecret", role: "admin", input: z.object({ gameId: gameIdSchema }) },
  async ({ gameId }, { user }) => {
    const db = getDb();
    await revokePreviousWebhookSecret(db, gameId, { actor: user, via: "web" });
    revalidatePath("/settings/games");
    return { ok: true, message: "The previous signing secret is no longer accepted." };
  },
);
