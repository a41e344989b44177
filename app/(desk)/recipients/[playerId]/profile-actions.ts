"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { requireSelectedGame } from "@/lib/games/games";
import { changePayoutDetails, reviewPayoutChange, setTaxForm } from "@/lib/profiles/profiles";
import {
  payoutDetailsInputSchema,
  playerIdSchema,
  reviewDecisionSchema,
  taxFormInputSchema,
} from "@/lib/profiles/schemas";

const recipientSchema = z.object({ playerId: playerIdSchema });

export const changePayoutDetailsAction = defineAction(
  { name: "changePayoutDetails", role: "finance", input: recipientSchema.and(payoutDetailsInputSchema) },
  async ({ playerId, ...input }, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await changePayoutDetails(
      db,
      { gameId: game.id, playerId, input },
      { actor: user, role: user.role, via: "web" },
    );
    revalidatePath(`/recipients/${playerId}`);
    const message =
      result.outcome === "applied"
        ? `Saved: ${result.masked}, paid in ${input.currency}. These first details apply now.`
        : result.outcome === "pending"
          ? `Saved for review: ${result.masked}, paid in ${input.currency}. ` +
            "A second finance user approves it before it applies."
          : "These are the details in force already: nothing changed.";
    return { ok: true, message };
  },
);

export const setTaxFormAction = defineAction(
  { name: "setTaxForm", role: "finance", input: recipientSchema.and(taxFormInputSchema) },
  async ({ playerId, ...input }, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await setTaxForm(
      db,
      { gameId: game.id, playerId, input },
      { actor: user, role: user.role, via: "web" },
    );
    revalidatePath(`/recipients/${playerId}`);
    return {
      ok: true,
      message: result.outcome === "applied" ? `Saved: tax form ${input.taxForm}.` : "Nothing changed.",
    };
  },
);

export const reviewPayoutChangeAction = defineAction(
  { name: "reviewPayoutChange", role: "finance", input: recipientSchema.and(reviewDecisionSchema) },
  async ({ playerId, changeId, decision, note }, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await reviewPayoutChange(
      db,
      { gameId: game.id, playerId, changeId, decision, note },
      { actor: user, role: user.role, via: "web" },
    );
    revalidatePath(`/recipients/${playerId}`);
    return {
      ok: true,
      message:
        result.outcome === "approved"
          ? `Approved: ${result.masked} is now in force.`
          : `Rejected: the details in force are unchanged.`,
    };
  },
);
