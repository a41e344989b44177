"use server";

import { revalidatePath } from "next/cache";
import type { ActingAs } from "@/core/actor";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { countOf, formatCount, formatUsdText } from "@/lib/format";
import { requireSelectedGame } from "@/lib/games/games";
import { cancelPaymentFileFlow } from "@/lib/payments/file-access";
import { createPaymentFiles } from "@/lib/payments/files";
import { importResults, linesToShow, listedCount, type PlanLine, recipientsChangedBy } from "@/lib/payments/results";
import { returnPayment } from "@/lib/payments/returns";
import {
  cancelPaymentFileSchema,
  createPaymentFileSchema,
  importResultsSchema,
  returnPaymentSchema,
} from "@/lib/payments/schemas";
import { noAddressNote, queueChangedStatementEmails, unsentEmailsNote } from "@/lib/statements/send";
import { z } from "zod";

/** Payment files, provider results and returned payments, from the window page (lib/payments does the work). */

function web(user: { id: string; email: string }): ActingAs {
  return { actor: { id: user.id, email: user.email }, via: "web" };
}

/**
 * Emails the statements whose payment just changed (paid, or returned: owed again). The payment or return stands even
 * if queuing the emails fails; the message then says to send them from the batch page. `recipients`: those whose
 * payment this operation changed, the only ones it names when they have no email address.
 */
async function emailChangedStatements(
  gameId: string,
  batchId: string,
  as: ActingAs,
  recipients: ReadonlySet<number>,
): Promise<string> {
  try {
    const sent = await queueChangedStatementEmails(getDb(), { gameId, batchId }, as);
    const queued = sent.paid.queued + sent.returned.queued;
    const without = [...sent.paid.skippedNoEmail, ...sent.returned.skippedNoEmail].filter((r) => recipients.has(r));
    const skipped = noAddressNote(new Set(without).size);
    return `${queued > 0 ? ` ${countOf(queued, "statement email")} queued.` : ""}${skipped}`;
  } catch (error) {
    return unsentEmailsNote(batchId, error);
  }
}

function revalidatePayouts(): void {
  revalidatePath("/payouts", "layout");
  revalidatePath("/recipients", "layout");
}

export type CreatedFilesData = {
  files: { id: string; fileName: string; rowCount: number; totalAmount: string; currency: string }[];
  /** The first REFUSALS_SHOWN of those left out (a large batch may leave out tens of thousands). */
  refused: { recipientPlayerId: number; reason: string }[];
  refusedCount: number;
};

/** How many of the recipients left out of a file are listed under its answer (all of them are counted). */
const REFUSALS_SHOWN = 200;

export const createPaymentFileAction = defineAction(
  { name: "createPaymentFile", role: "finance", input: createPaymentFileSchema },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const made = await createPaymentFiles(db, { ...input, gameId: game.id }, web(user));
    revalidatePayouts();
    const listed = made.refused.length > REFUSALS_SHOWN ? `listed, the first ${REFUSALS_SHOWN}` : "listed";
    const refused =
      made.refused.length > 0 ? ` ${countOf(made.refused.length, "recipient")} left out (${listed}).` : "";
    return {
      ok: true as const,
      message:
        `Wrote ${countOf(made.files.length, "file")}: ${countOf(made.inPayment, "statement")}, ` +
        `${formatUsdText(made.totalUsd)}, now in payment.${refused}`,
      data: {
        files: made.files,
        refused: made.refused
          .slice(0, REFUSALS_SHOWN)
          .map((r) => ({ recipientPlayerId: r.recipientPlayerId, reason: r.reason })),
        refusedCount: made.refused.length,
      } satisfies CreatedFilesData,
    };
  },
);

export const cancelPaymentFileAction = defineAction(
  { name: "cancelPaymentFile", role: "finance", input: cancelPaymentFileSchema },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const out = await cancelPaymentFileFlow(db, { gameId: game.id, ...input }, web(user));
    revalidatePayouts();
    return {
      ok: true as const,
      message: `File cancelled; ${countOf(out.returnedToApproved, "statement")} approved again.`,
    };
  },
);

export type ImportPreview = {
  dryRun: boolean;
  counts: Record<string, number>;
  applied: { paid: number; rejected: number; returned: number; pending: number };
  unreadable: { line: number; reason: string }[];
  /** The lines shown (linesToShow): all those listed and the first of the others, up to 500 of each. */
  lines: Omit<PlanLine, "result" | "recordedPayment">[];
  /** How many lines the report had. */
  totalLines: number;
};

export const importResultsAction = defineAction(
  {
    name: "importPaymentResults",
    role: "finance",
    input: importResultsSchema.extend({ mode: z.enum(["dry_run", "apply"], { message: "choose what to do" }) }),
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const out = await importResults(
      db,
      {
        gameId: game.id,
        batchId: input.batchId,
        format: input.format,
        text: input.text,
        dryRun: input.mode === "dry_run",
        paidOn: input.paidOn,
      },
      web(user),
    );
    const emails = out.dryRun
      ? ""
      : await emailChangedStatements(game.id, input.batchId, web(user), recipientsChangedBy(out.plan));
    if (!out.dryRun) revalidatePayouts();
    const a = out.applied;
    const listed = listedCount(out.counts);
    return {
      ok: true as const,
      message: out.dryRun
        ? `Dry run: ${countOf(out.plan.lines.length, "result")} read; nothing changed. ` +
          `${formatCount(listed)} would not be applied (listed).`
        : `Applied: ${formatCount(a.paid)} paid, ${formatCount(a.rejected)} rejected, ` +
          `${formatCount(a.returned)} returned` +
          // Still in payment: the provider holds them (the file can no longer be cancelled).
          (a.pending > 0 ? `, ${formatCount(a.pending)} pending at the provider.` : ".") +
          ` ${formatCount(listed)} not applied (listed).${emails}`,
      data: {
        dryRun: out.dryRun,
        counts: out.counts,
        applied: out.applied,
        unreadable: out.plan.unreadable,
        lines: linesToShow(out.plan.lines).map(({ result: _result, recordedPayment: _recorded, ...line }) => line),
        totalLines: out.plan.lines.length,
      } satisfies ImportPreview,
    };
  },
);

export const returnPaymentAction = defineAction(
  { name: "returnPayment", role: "finance", input: returnPaymentSchema },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const undo = input.neverSent === "yes";
    const returned = { gameId: game.id, ...input.payment, reason: input.reason, undo };
    const out = await returnPayment(db, returned, web(user));
    const emails = await emailChangedStatements(game.id, out.batchId, web(user), new Set([out.recipientPlayerId]));
    revalidatePayouts();
    const done = undo ? "undone (recorded by mistake, never sent)" : "recorded as returned";
    return {
      ok: true as const,
      message: `Payment of ${formatUsdText(out.amountUsd)} ${done}; it is owed again.${emails}`,
    };
  },
);
