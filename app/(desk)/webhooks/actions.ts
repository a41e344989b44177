"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction, redrawnOnConflict } from "@/lib/actions";
import { requireSelectedGame } from "@/lib/games/games";
import { retryWebhookEvent, saveGameAutomation } from "@/lib/webhooks/automation";
import { webhookEventIdSchema } from "@/lib/webhooks/event-id";

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
    await saveGameAutomation(db, game.id, automation, { actor: user, via: "web" });
    revalidatePath("/webhooks");
    return { ok: true, message: `Saved the automatic pulls of ${game.name}.` };
  },
);

export const retryWebhookEventAction = defineAction(
  {
    name: "retryWebhookEvent",
    role: "finance",
    input: z.object({ eventId: webhookEventIdSchema }),
  },
  async ({ eventId }, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    // Queued again by someone else since the page was drawn: the page shows it pending, with the refusal.
    await redrawnOnConflict("/webhooks", () => retryWebhookEvent(db, game.id, eventId, { actor: user, via: "web" }));
    revalidatePath("/webhooks");
    revalidatePath(`/webhooks/${eventId}`);
    return { ok: true, message: "Queued; the event is processed again in a moment." };
  },
);
