"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { resetWebhookEvent, updateGameAutomation } from "@/db/queries/webhooks";
import { defineAction } from "@/lib/actions";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { requireSelectedGame } from "@/lib/games/games";
import { queueWebhookProcessing } from "@/lib/webhooks/receive";

const checkbox = z
  .union([z.literal("on"), z.literal("")])
  .optional()
  .transform((value) => value === "on");

const automationFormSchema = z.object({
  // Names the form, so that a post without it (an empty or foreign form) is refused instead of turning everything off.
  form: z.literal("automation", { message: "is missing; reload the page and try again" }),
  autoRefresh: checkbox,
  pullPreviousMonth: checkbox,
  pullCurrentMonthDaily: checkbox,
});

export const saveAutomationAction = defineAction(
  { name: "saveWebhookAutomation", role: "admin", input: automationFormSchema },
  async (form, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const automation = {
      autoRefresh: form.autoRefresh,
      pullPreviousMonth: form.pullPreviousMonth,
      pullCurrentMonthDaily: form.pullCurrentMonthDaily,
    };
    if (!(await updateGameAutomation(db, game.id, automation))) throw new AppError("NOT_FOUND", `No game ${game.id}.`);
    await recordAudit(db, {
      actor: user,
      action: "game.automation",
      gameId: game.id,
      target: game.id,
      outcome: "succeeded",
      detail: automation,
    });
    revalidatePath("/webhooks");
    return { ok: true, message: `Saved the automatic pulls of ${game.name}.` };
  },
);

export const retryWebhookEventAction = defineAction(
  {
    name: "retryWebhookEvent",
    role: "finance",
    input: z.object({ eventId: z.string().regex(/^\d{1,19}$/, { message: "must be a webhook event id" }) }),
  },
  async ({ eventId }, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    if (!(await resetWebhookEvent(db, game.id, eventId))) {
      throw new AppError("CONFLICT", "Only a failed event of this game can be processed again.", { field: "eventId" });
    }
    await queueWebhookProcessing(eventId);
    await recordAudit(db, {
      actor: user,
      action: "webhook.retry",
      gameId: game.id,
      target: eventId,
      outcome: "queued",
    });
    revalidatePath("/webhooks");
    revalidatePath(`/webhooks/${eventId}`);
    return { ok: true, message: "Queued; the event is processed again in a moment." };
  },
);
