"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import type { ActingAs } from "@/core/actor";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { AppError } from "@/lib/errors";
import { isoDateSchema } from "@/lib/payments/schemas";
import { requireSelectedGame } from "@/lib/games/games";
import { countOf, formatCount } from "@/lib/format";
import {
  approvePayoutBatch,
  approveStatements,
  carryStatementsForward,
  discardPayoutBatch,
  holdStatements,
  markStatementsPaid,
  PAYMENT_METHODS,
  preparePayoutBatch,
  releaseStatements,
  unapproveStatements,
} from "@/lib/payouts/batches";
import { describeBulk } from "@/lib/payouts/bulk-words";
import { overrideFlag } from "@/lib/payouts/flag-override";
import {
  batchIdSchema,
  batchRevisionSchema,
  flagCauseSchema,
  overrideReasonSchema,
  reasonSchema,
} from "@/lib/payouts/schemas";
import { parseWindowKey } from "@/lib/payouts/window-key";
import { noAddressNote, queuePaidStatementEmails, unsentEmailsNote } from "@/lib/statements/send";
import { formatUsdText } from "@/lib/format";

const idsSchema = z
  .union([z.string(), z.array(z.string())], { message: "select at least one statement" })
  .transform((value) => (Array.isArray(value) ? value : [value]).filter((v) => v !== ""))
  .pipe(
    z
      .array(z.uuid({ message: "must be statement ids" }))
      .min(1, { message: "select at least one statement" })
      .max(50_000),
  );

/** Changes made here come through the web app, by the signed-in user. */
function web(user: { id: string; email: string }): ActingAs {
  return { actor: { id: user.id, email: user.email }, via: "web" };
}

function revalidatePayouts(): void {
  revalidatePath("/payouts", "layout");
  revalidatePath("/recipients", "layout");
}

export const prepareBatchAction = defineAction(
  {
    name: "preparePayoutBatch",
    role: "finance",
    input: z.object({ window: z.string().min(1).max(100), snapshotId: z.uuid().optional() }),
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const window = parseWindowKey(input.window);
    if (!window) throw new AppError("INVALID_INPUT", "That is not a window.", { field: "window" });
    const result = await preparePayoutBatch(db, { gameId: game.id, window, snapshotId: input.snapshotId }, web(user));
    revalidatePayouts();
    return {
      ok: true,
      message:
        `Prepared ${countOf(result.statements, "statement")} from snapshot version ` +
        `${result.snapshotVersion}: ${formatUsdText(result.payableUsd)} payable.`,
    };
  },
);

const selectionSchema = z.object({ batchId: batchIdSchema, ids: idsSchema });

export const approveStatementsAction = defineAction(
  { name: "approvePayoutStatements", role: "finance", input: selectionSchema },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await approveStatements(db, { gameId: game.id, batchId: input.batchId, ids: input.ids }, web(user));
    revalidatePayouts();
    return { ok: true, message: describeBulk("Approved", result) };
  },
);

export const approveAllUnflaggedAction = defineAction(
  {
    name: "approveUnflaggedPayoutStatements",
    role: "finance",
    // The drafts approved are those the page showed unflagged: a batch changed since (a hold released, a flag
    // overridden) is refused rather than approve what nobody looked at.
    input: z.object({ batchId: batchIdSchema, revision: batchRevisionSchema }),
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await approveStatements(
      db,
      { gameId: game.id, batchId: input.batchId, all: "draft_unflagged", drawnAtRevision: input.revision },
      web(user),
    );
    revalidatePayouts();
    return { ok: true, message: describeBulk("Approved", result) };
  },
);

export const unapproveStatementsAction = defineAction(
  { name: "unapprovePayoutStatements", role: "finance", input: selectionSchema },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await unapproveStatements(
      db,
      { gameId: game.id, batchId: input.batchId, ids: input.ids },
      web(user),
    );
    revalidatePayouts();
    return { ok: true, message: describeBulk("Returned to draft", result) };
  },
);

export const holdStatementsAction = defineAction(
  { name: "holdPayoutStatements", role: "finance", input: selectionSchema.extend({ reason: reasonSchema }) },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await holdStatements(
      db,
      { gameId: game.id, batchId: input.batchId, ids: input.ids, reason: input.reason },
      web(user),
    );
    revalidatePayouts();
    return { ok: true, message: describeBulk("Held", result) };
  },
);

export const releaseStatementsAction = defineAction(
  { name: "releasePayoutStatements", role: "finance", input: selectionSchema.extend({ reason: reasonSchema }) },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await releaseStatements(
      db,
      { gameId: game.id, batchId: input.batchId, ids: input.ids, reason: input.reason },
      web(user),
    );
    revalidatePayouts();
    return { ok: true, message: describeBulk("Released", result) };
  },
);

export const carryForwardStatementsAction = defineAction(
  { name: "carryForwardPayoutStatements", role: "finance", input: selectionSchema.extend({ reason: reasonSchema }) },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await carryStatementsForward(
      db,
      { gameId: game.id, batchId: input.batchId, ids: input.ids, reason: input.reason },
      web(user),
    );
    revalidatePayouts();
    return { ok: true, message: describeBulk("Carried forward", result) };
  },
);

export const overrideFlagAction = defineAction(
  {
    name: "overridePayoutFlag",
    role: "finance",
    input: z.object({
      batchId: batchIdSchema,
      flag: z.string().min(1).max(64),
      cause: flagCauseSchema,
      recipientPlayerId: z
        .string()
        .optional()
        .transform((v) => (v === undefined || v === "" ? null : v))
        .pipe(
          z
            .string()
            .regex(/^\d{1,15}$/, { message: "must be a player id" })
            .transform(Number)
            .nullable(),
        ),
      reason: overrideReasonSchema,
    }),
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    await overrideFlag(
      db,
      {
        gameId: game.id,
        batchId: input.batchId,
        flag: input.flag,
        cause: input.cause,
        recipientPlayerId: input.recipientPlayerId,
        reason: input.reason,
      },
      web(user),
    );
    revalidatePayouts();
    return { ok: true, message: "Flag overridden; the reason is kept with the batch." };
  },
);

export const approveBatchAction = defineAction(
  {
    name: "approvePayoutBatch",
    role: "finance",
    input: z.object({ batchId: batchIdSchema, revision: batchRevisionSchema }),
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const result = await approvePayoutBatch(
      db,
      { gameId: game.id, batchId: input.batchId, drawnAtRevision: input.revision },
      web(user),
    );
    revalidatePayouts();
    return {
      ok: true,
      message:
        `Batch approved: ${formatCount(result.approved)} to pay (${formatUsdText(result.payableUsd)}), ` +
        `${formatCount(result.carried)} carried forward, ${formatCount(result.held)} held.`,
    };
  },
);

export const markPaidAction = defineAction(
  {
    name: "markPayoutsPaid",
    role: "finance",
    input: z.object({
      batchId: batchIdSchema,
      // Sent by the batch's own button (every approved statement); a selection names its statements instead.
      revision: batchRevisionSchema.optional(),
      ids: z
        .union([z.string(), z.array(z.string())])
        .optional()
        .transform((value) =>
          value === undefined ? undefined : (Array.isArray(value) ? value : [value]).filter((v) => v !== ""),
        )
        .pipe(z.array(z.uuid()).optional()),
      // A calendar day (2026-02-30 is refused, not read as 2 March), then not in the future.
      paidOn: isoDateSchema.refine((v) => Date.parse(`${v}T00:00:00Z`) <= Date.now() + 86_400_000, {
        message: "cannot be in the future",
      }),
      method: z.enum(PAYMENT_METHODS, { message: "must be one of the listed methods" }),
      reference: z
        .string()
        .trim()
        .min(1, { message: "is required (the bank or provider reference)" })
        .max(200, { message: "must be at most 200 characters" }),
    }),
  },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const ids = input.ids && input.ids.length > 0 ? input.ids : undefined;
    if (!ids && input.revision === undefined)
      throw new AppError("INVALID_INPUT", "Say which statements are paid: reload the page and try again.");
    const result = await markStatementsPaid(
      db,
      {
        gameId: game.id,
        batchId: input.batchId,
        ids,
        paidOn: input.paidOn,
        method: input.method,
        reference: input.reference,
        drawnAtRevision: input.revision,
      },
      web(user),
    );
    // Each recipient paid gets their statement by email; the payment stands even if queuing the emails fails.
    let emails = "";
    try {
      const sent = await queuePaidStatementEmails(
        db,
        { gameId: game.id, batchId: input.batchId, statementIds: result.statementIds },
        { actor: { id: user.id, email: user.email }, via: "web" },
      );
      emails = ` ${countOf(sent.queued, "statement email")} queued.${noAddressNote(sent.skippedNoEmail.length)}`;
    } catch (error) {
      emails = unsentEmailsNote(input.batchId, error);
    }
    revalidatePayouts();
    return {
      ok: true,
      message: `Recorded ${countOf(result.paid, "payment")}, ${formatUsdText(result.amountUsd)} in total.${emails}`,
    };
  },
);

export const discardBatchAction = defineAction(
  { name: "discardPayoutBatch", role: "finance", input: z.object({ batchId: batchIdSchema, reason: reasonSchema }) },
  async (input, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    await discardPayoutBatch(db, { gameId: game.id, batchId: input.batchId, reason: input.reason }, web(user));
    revalidatePayouts();
    return { ok: true, message: "Draft discarded; its carried balances are free for the next batch." };
  },
);
