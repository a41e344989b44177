"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { type Db, getDb } from "@/db";
import { defineAction, redrawnOnConflict } from "@/lib/actions";
import type { CurrentUser } from "@/lib/auth/session";
import { requireSelectedGame } from "@/lib/games/games";
import { readPayoutSettings } from "@/lib/payouts/settings";
import { changePayoutDetails, type ProfileActing, reviewPayoutChange, setTaxForm } from "@/lib/profiles/profiles";
import {
  payoutDetailsInputSchema,
  playerIdSchema,
  reviewDecisionSchema,
  taxFormInputSchema,
} from "@/lib/profiles/schemas";

const recipientSchema = z.object({ playerId: playerIdSchema });

/** Who approves a change held for review, by the two-person rule in force (Settings → Payouts). */
async function reviewedBy(): Promise<string> {
  return (await readPayoutSettings(getDb())).twoPersonRule
    ? "A second finance user approves it before it applies."
    : "It applies once approved on this page (the two-person rule is off: you may approve it yourself).";
}

/** Runs one change of a recipient's profile in the selected game, acting on the web, then refreshes their page. */
async function changeRecipient<T>(
  user: CurrentUser,
  playerId: number,
  change: (db: Db, gameId: string, acting: ProfileActing) => Promise<T>,
): Promise<T> {
  const db = getDb();
  const game = await requireSelectedGame(db, user);
  const path = `/recipients/${playerId}`;
  // A change reviewed or replaced by a colleague since the page was drawn: refused, and the page is drawn again.
  const result = await redrawnOnConflict(path, () => change(db, game.id, { actor: user, role: user.role, via: "web" }));
  revalidatePath(path);
  return result;
}

export const changePayoutDetailsAction = defineAction(
  { name: "changePayoutDetails", role: "finance", input: recipientSchema.and(payoutDetailsInputSchema) },
  async ({ playerId, ...input }, { user }) => {
    const result = await changeRecipient(user, playerId, (db, gameId, acting) =>
      changePayoutDetails(db, { gameId, playerId, input }, acting),
    );
    const message =
      result.outcome === "applied"
        ? `Saved: ${result.masked}, paid in ${input.currency}. These first details apply now.`
        : result.outcome === "pending"
          ? `Saved for review: ${result.masked}, paid in ${input.currency}. ${await reviewedBy()}`
          : "These are the details in force already: nothing changed.";
    // A change that waited for a review is gone: said, with who entered it (their page no longer lists it).
    const by = result.displaced?.enteredByEmail ? ` entered by ${result.displaced.enteredByEmail}` : "";
    const displaced = !result.displaced
      ? ""
      : result.outcome === "unchanged"
        ? ` The change waiting for review (${result.displaced.masked ?? "details"}${by}) is withdrawn.`
        : ` It replaces the change that waited for review (${result.displaced.masked ?? "details"}${by}).`;
    return { ok: true, message: `${message}${displaced}` };
  },
);

/** The tax form on file the form was drawn with (taxFormDrawn): a save over a colleague's change is refused. */
const drawnTaxFormSchema = z.object({ drawn: z.string().max(64, { message: "is too long" }).optional() });

export const setTaxFormAction = defineAction(
  { name: "setTaxForm", role: "finance", input: recipientSchema.and(drawnTaxFormSchema).and(taxFormInputSchema) },
  async ({ playerId, drawn, ...input }, { user }) => {
    const result = await changeRecipient(user, playerId, (db, gameId, acting) =>
      setTaxForm(db, { gameId, playerId, input, drawn }, acting),
    );
    return {
      ok: true,
      message: result.outcome === "applied" ? `Saved: tax form ${input.taxForm}.` : "Nothing changed.",
    };
  },
);

export const reviewPayoutChangeAction = defineAction(
  { name: "reviewPayoutChange", role: "finance", input: recipientSchema.and(reviewDecisionSchema) },
  async ({ playerId, changeId, decision, note }, { user }) => {
    const result = await changeRecipient(user, playerId, (db, gameId, acting) =>
      reviewPayoutChange(db, { gameId, playerId, changeId, decision, note }, acting),
    );
    return {
      ok: true,
      message:
        result.outcome === "approved"
          ? `Approved: ${result.masked} is now in force.`
          : `Rejected: the details in force are unchanged.`,
    };
  },
);
