"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { countOf } from "@/lib/format";
import { requireSelectedGame } from "@/lib/games/games";
import { revokeStatementLinks } from "@/lib/statements/links";
import { countSeenSchema } from "@/lib/statements/schemas";
import { noAddressNote, queueStatementSends, type SendSummary } from "@/lib/statements/send";

const batchIdSchema = z.uuid({ message: "must be a payout batch id" });

/** What a send did; `unemailed`: it asked for the statements never emailed, and none was left. */
function describeSends(summary: SendSummary, unemailed = false): string {
  const none =
    summary.skippedNoEmail.length === 0
      ? "Every statement of this batch was emailed already: none was queued again."
      : "No email was queued: every statement of this batch with a usable address was emailed already.";
  const queued =
    summary.queued > 0
      ? `Queued ${countOf(summary.queued, "statement email")}.`
      : unemailed
        ? none
        : "No email was queued.";
  return `${queued}${noAddressNote(summary.skippedNoEmail.length)}`;
}

/**
 * The batch's send: the statements never emailed or whose email failed to send (a second click, or a send after the
 * payment's own emails, queues no statement twice), or every statement again when asked (`scope: "all"`).
 */
export const sendBatchStatementsAction = defineAction(
  {
    name: "sendBatchStatements",
    role: "finance",
    input: z
      .object({
        batchId: batchIdSchema,
        scope: z.enum(["unemailed", "all"], { message: "must be unemailed or all" }).default("unemailed"),
        /** The runs of the batch's emails the page showed; "all" is refused when one was queued since. */
        runsSeen: countSeenSchema.optional(),
      })
      // Sending every statement again must say what the page showed: a request without it is refused, not let through.
      .refine((v) => v.scope !== "all" || v.runsSeen !== undefined, {
        message: "is missing: reload the page and send again",
        path: ["runsSeen"],
      }),
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const summary = await queueStatementSends(
      db,
      {
        gameId: game.id,
        batchId: input.batchId,
        unemailed: input.scope === "unemailed",
        // Sending every statement again is the one send that can email a recipient twice: it must be what was shown.
        runsSeen: input.scope === "all" ? input.runsSeen : undefined,
      },
      { actor: { id: user.id, email: user.email }, via: "web" },
    );
    revalidatePath("/payouts", "layout");
    return { ok: true, message: describeSends(summary, input.scope === "unemailed") };
  },
);

export const sendStatementAction = defineAction(
  {
    name: "sendStatement",
    role: "finance",
    input: z.object({
      batchId: batchIdSchema,
      statementId: z.uuid({ message: "must be a statement id" }),
      /** The statement's emails its page showed: refused when one was queued since (two presses, two people). */
      sendsSeen: countSeenSchema,
    }),
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const summary = await queueStatementSends(
      db,
      { gameId: game.id, batchId: input.batchId, statementIds: [input.statementId], sendsSeen: input.sendsSeen },
      { actor: { id: user.id, email: user.email }, via: "web" },
    );
    revalidatePath("/payouts", "layout");
    return { ok: true, message: describeSends(summary) };
  },
);

export const revokeStatementLinksAction = defineAction(
  { name: "revokeStatementLinks", role: "finance", input: z.object({ batchId: batchIdSchema }) },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const { withheld } = await revokeStatementLinks(
      db,
      { gameId: game.id, batchId: input.batchId },
      { actor: { id: user.id, email: user.email }, via: "web" },
    );
    revalidatePath("/payouts", "layout");
    const stopped =
      withheld === 0
        ? ""
        : ` ${countOf(withheld, "email")} queued and not yet sent ${withheld === 1 ? "is" : "are"} not sent; ` +
          "emailing the statements offers them again.";
    return {
      ok: true,
      message: `Every statement link of this batch sent so far now answers “no such statement”.${stopped}`,
    };
  },
);
