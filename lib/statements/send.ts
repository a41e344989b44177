import "server-only";
import { randomUUID } from "node:crypto";
import { MAILBOX } from "@/core/mailbox";
import type { Db } from "@/db";
import {
  clearDeliveryFailure,
  insertDeliveries,
  listSendTargets,
  markSendsFailed,
  countEmailRun,
  countStatementSends,
  readEmailRuns,
  isSendSettled,
  wasSendDelivered,
} from "@/db/queries/statement-deliveries";
import { findBatchGame } from "@/db/queries/payout-lookup";
import { findStatementId } from "@/db/queries/payouts";
import { checkSendAgainstRevocation, getBatchLinkRevocation, isLatestSend } from "@/db/queries/statement-links";
import { lockForTransaction } from "@/db/queries/locks";
import { keepStatementIssuer } from "@/db/queries/statements";
import type { ActingAs } from "@/core/actor";
import { recordAudit, recordWithRetries } from "@/lib/audit";
import { AppError, isAppError } from "@/lib/errors";
import { enqueueInTransaction } from "@/lib/jobs/queue";
import { namedKey } from "@/lib/keys/check";
import { countOf } from "@/lib/format";
import { log } from "@/lib/log";
import {
  isPermanentRefusal,
  mailFrom,
  mailTransport,
  sendMessageId,
  serverAnswerOf,
  serverCodeOf,
} from "@/lib/mail/transport";
import { recordFailedAttempt, recordSuperseded, recordWithheld, SentNotRecorded } from "./delivery-log";
import { statementEmail } from "./email";
import { statementLinkUrl } from "./links";
import { numberStatements, type RenderedStatement, renderStatement } from "./render";
import { SEND_ATTEMPTS, sendStatementJob } from "./send-job";
import { readStatementSettings, requireStatementIssuer } from "./settings";

/**
 * The address a statement goes to: one mailbox. The service reports a player's email as free text; a value holding
 * two addresses ("a@x.com, b@y.com") would send the statement and its signed link to both, so anything but a single
 * address counts as none.
 */
export function mailboxOf(email: string | null): string | null {
  return email !== null && MAILBOX.safeParse(email).success ? email : null;
}

export type SendSummary = {
  batchId: string;
  gameId: string;
  queued: number;
  /** Recipients with no usable email address on record (mailboxOf): nothing is sent to them. */
  skippedNoEmail: number[];
  /** How many times the batch's statement emails were queued, this one included: what a send of all again is shown. */
  emailRuns: number;
};

/**
 * Queues an email of each chosen statement of an approved or paid batch (all, those never emailed, one recipient, or
 * the given statements): numbers the batch, then in one transaction writes a `queued` line per statement to the
 * delivery log and queues one job each. The batch's sends are taken one at a time (a lock held by that transaction), so
 * two processes recording payments at once cannot both find the same statement unsent and email it twice, and a crash
 * leaves either the lines and their jobs or neither. Refused (ISSUER_MISSING) until the studio has said who issues its
 * statements: none goes out naming a placeholder.
 */
export async function queueStatementSends(
  db: Db,
  params: {
    gameId?: string;
    batchId: string;
    recipientPlayerId?: number;
    statementIds?: string[];
    paidUnsent?: boolean;
    returnedUnsent?: boolean;
    /** Only statements never emailed or failed to send: what the batch's send does unless asked for all again. */
    unemailed?: boolean;
    /** The runs of the batch's emails the page showed (`countBatchEmails`): refused when one was queued since. */
    runsSeen?: number;
    /**
     * The emails of the one statement asked for (given, or the recipient's) its page showed, or the command line was
     * given (`countStatementSends`): refused when that count differs.
     */
    sendsSeen?: number;
  },
  acting: ActingAs,
): Promise<SendSummary> {
  const gameId = await findBatchGame(db, params.batchId);
  if (!gameId || (params.gameId && params.gameId !== gameId))
    throw new AppError("NOT_FOUND", "No such payout batch for this game.");
  await requireStatementIssuer(db);
  await numberStatements(db, { gameId, batchId: params.batchId }, acting);
  return db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, `statement-sends:${params.batchId}`);
    if (params.runsSeen !== undefined && (await readEmailRuns(trx, params.batchId)) !== params.runsSeen)
      throw new AppError(
        "CONFLICT",
        acting.via === "cli"
          ? "Statement emails of this batch were queued since the count given (--runs-seen): nothing was sent " +
              "again. Look at the statements' delivery logs, then give the count `payouts show` prints now " +
              "(emailRuns) to send every one again."
          : "Statement emails of this batch were queued since this page was drawn (a colleague, another tab, a " +
              "payment's emails, or an earlier press still running): nothing was sent again. Reload the page and " +
              "look at the statements' delivery logs before sending every one again.",
      );
    // The one statement whose emails were counted: given, or the recipient's (the command line names the recipient).
    const one =
      params.statementIds?.[0] ??
      (params.sendsSeen !== undefined && params.recipientPlayerId !== undefined
        ? await findStatementId(trx, { gameId, batchId: params.batchId, recipientPlayerId: params.recipientPlayerId })
        : undefined);
    const emailed = params.sendsSeen !== undefined && one ? await countStatementSends(trx, one) : null;
    if (emailed !== null && emailed !== params.sendsSeen)
      throw new AppError(
        "CONFLICT",
        acting.via === "cli"
          ? `This statement's email was queued ${countOf(emailed, "time")} (failed ones included), not ` +
              `${params.sendsSeen === 0 ? "never, as a send without --again is" : `${params.sendsSeen} as given`}: ` +
              "nothing was sent again. Look at its delivery log on the statement's page, then give " +
              `--again --sends-seen ${emailed} to email it again.`
          : "This statement was emailed since this page was drawn (a colleague, another tab, or its payment's " +
              "email): nothing was sent again. Reload the page and look at its delivery log first.",
      );
    const targets = await listSendTargets(trx, { ...params, gameId });
    if (params.recipientPlayerId !== undefined && targets.length === 0)
      throw new AppError("NOT_FOUND", "That recipient has no statement in this batch.");
    const addressed = targets.map((t) => ({ ...t, to: mailboxOf(t.email) }));
    const sendable = addressed.flatMap((t) => (t.to === null ? [] : [{ ...t, to: t.to }]));
    const audit = (outcome: "queued" | "nothing_changed", detail: Record<string, unknown>) =>
      recordAudit(trx, {
        actor: acting.actor,
        via: acting.via,
        action: "statements.send",
        gameId,
        target: params.batchId,
        outcome,
        detail: { ...detail, recipient: params.recipientPlayerId ?? null },
      });
    if (sendable.length === 0) {
      // Nothing to send (every statement asked for emailed already, or no usable address): no run is counted, and a
      // press that sent nothing is audited as such.
      if (!(params.paidUnsent || params.returnedUnsent || params.unemailed))
        await audit("nothing_changed", { queued: 0, noEmail: targets.length });
      return {
        batchId: params.batchId,
        gameId,
        queued: 0,
        skippedNoEmail: targets.map((t) => t.recipientPlayerId),
        emailRuns: await readEmailRuns(trx, params.batchId),
      };
    }
    const sends = sendable.map((t) => ({ ...t, sendId: randomUUID() }));
    await countEmailRun(trx, { batchId: params.batchId, statementIds: sends.map((s) => s.statementId) });
    await insertDeliveries(
      trx,
      sends.map((s) => ({
        statementId: s.statementId,
        gameId,
        recipientPlayerId: s.recipientPlayerId,
        sendId: s.sendId,
        status: "queued" as const,
        toAddress: s.to,
      })),
    );
    await audit("queued", { queued: sends.length });
    await enqueueInTransaction(
      trx,
      sendStatementJob,
      sends.map((s) => ({ gameId, statementId: s.statementId, sendId: s.sendId, to: s.to })),
    );
    return {
      batchId: params.batchId,
      gameId,
      queued: sends.length,
      skippedNoEmail: addressed.filter((t) => t.to === null).map((t) => t.recipientPlayerId),
      emailRuns: await readEmailRuns(trx, params.batchId),
    };
  });
}

/** What a message about sending adds for the recipients skipped for want of an address ("" when none was). */
export function noAddressNote(skipped: number): string {
  return skipped === 0
    ? ""
    : ` ${countOf(skipped, "recipient")} ${skipped === 1 ? "has" : "have"} no usable email address on record.`;
}

/**
 * What a payment's message adds when its statement emails were not queued (the payment stands): the refusal's own
 * words (no issuer set), or where to send them from; logged either way.
 */
export function unsentEmailsNote(batchId: string, error: unknown): string {
  log.error("statement emails not queued", { batchId, error });
  return isAppError(error)
    ? ` The statement emails were not queued. ${error.message}`
    : " The statement emails could not be queued: send them from the batch page.";
}

/**
 * Emails the statements of a batch that were just paid (paid, not emailed since that payment): called when payment
 * is recorded.
 */
export function queuePaidStatementEmails(
  db: Db,
  params: { gameId: string; batchId: string; statementIds?: string[] },
  acting: ActingAs,
): Promise<SendSummary> {
  return offeredAgainIfUnqueued(db, [{ ...params, paidUnsent: true }], () =>
    queueStatementSends(db, { ...params, paidUnsent: true }, acting),
  );
}

/**
 * Runs the send that follows a payment or a return. When it fails for any cause but a refusal (no issuer: nothing is
 * emailed anywhere until one is named), the statements it was to email are marked as failed to send, so the batch's
 * send offers them again: a statement emailed before (when approved, or when paid before its payment came back) would
 * otherwise count as emailed, and its recipient never be told.
 */
async function offeredAgainIfUnqueued<T>(
  db: Db,
  selections: Parameters<typeof listSendTargets>[1][],
  send: () => Promise<T>,
): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!isAppError(error)) {
      try {
        const targets = (await Promise.all(selections.map((s) => listSendTargets(db, s)))).flat();
        await markSendsFailed(
          db,
          targets.filter((t) => mailboxOf(t.email) !== null).map((t) => t.statementId),
        );
      } catch (marking) {
        log.error("statements not marked as failed to send", { error: marking });
      }
    }
    throw error;
  }
}

/**
 * Emails the statements of a batch whose payment just changed: paid ones not emailed since their payment, and returned
 * ones not emailed since their payment came back (the statement then says what came back and that it is owed again).
 * Called after provider results are applied or a return is recorded; a second call queues nothing more.
 */
export async function queueChangedStatementEmails(
  db: Db,
  params: { gameId: string; batchId: string },
  acting: ActingAs,
): Promise<{ paid: SendSummary; returned: SendSummary }> {
  const paidUnsent = { ...params, paidUnsent: true };
  const returnedUnsent = { ...params, returnedUnsent: true };
  return offeredAgainIfUnqueued(db, [paidUnsent, returnedUnsent], async () => ({
    paid: await queueStatementSends(db, paidUnsent, acting),
    returned: await queueStatementSends(db, returnedUnsent, acting),
  }));
}

/**
 * One attempt at emailing a statement (the job's handler). A send that already went out is not sent again, nor one
 * overtaken by a later send of the same statement (which shows the statement as it is when it goes out). A refusal
 * for good (5xx) is final at once; any other failure is logged with the server's answer and thrown, so the queue
 * retries it, and the last attempt's is final. A final failure marks the recipient as having a failed delivery, which
 * a later successful delivery clears, and lets the batch's send offer the statement again.
 */
export async function deliverStatement(
  db: Db,
  job: { gameId: string; statementId: string; sendId: string; to: string },
  attempt: number,
  /** The worker's stop (JobMeta.signal): aborted once the job was handed back, which another worker then sends. */
  signal?: AbortSignal,
): Promise<"sent" | "failed" | "already sent" | "already failed" | "withheld" | "superseded"> {
  if (await wasSendDelivered(db, job.sendId)) return "already sent";
  // Failed for good (withheld, refused, given up) by an earlier run of this job: its outcome stands.
  if (await isSendSettled(db, job.sendId)) return "already failed";
  const acting = { actor: null, via: "job" as const };
  const started = performance.now();
  const rendered = await renderStatement(db, { gameId: job.gameId, statementId: job.statementId }, acting);
  const renderMs = Math.round(performance.now() - started);
  const settings = await readStatementSettings(db);
  const linkKey = await namedKey(db);
  // Queued before the batch's links were revoked: not sent. The link's time is read on the database's clock, as a
  // revocation's is (a sender whose clock runs ahead would outlive one), under the lock a revocation takes alone.
  const { batchId, revoked, linkIssuedAt } = await db
    .transaction()
    .execute((trx) => checkSendAgainstRevocation(trx, job.sendId));
  const line = {
    statementId: job.statementId,
    gameId: job.gameId,
    recipientPlayerId: rendered.doc.recipient.playerId,
    sendId: job.sendId,
    toAddress: job.to,
    attempt,
  };
  if (revoked) {
    await recordWithheld(db, line);
    return "withheld";
  }
  if (!(await isLatestSend(db, job.sendId))) {
    await recordSuperseded(db, line);
    return "superseded";
  }
  // Handed back while the statement was read and laid out: the retry sends it, this attempt does not.
  signal?.throwIfAborted();
  const transport = mailTransport();
  let serverAnswer: string | null;
  let sending = performance.now();
  try {
    if (!transport) throw new Error("SMTP_URL is not set: no mail server to send through");
    const message = statementEmail({
      doc: rendered.doc,
      pdf: rendered.pdf,
      from: mailFrom(),
      to: job.to,
      link: statementLinkUrl(job.statementId, settings.linkDays, linkKey, linkIssuedAt),
      linkDays: settings.linkDays,
      messageId: sendMessageId("statement", job.sendId),
    });
    sending = performance.now();
    serverAnswer = (await transport.sendMail(message)).response ?? null;
  } catch (error) {
    timing(job, rendered, renderMs, sending);
    const answer = serverAnswerOf(error);
    // The address refused for good (a 5xx answer to RCPT TO) is not tried again: it would be refused the same way.
    // Anything else (the server's own setup, no answer, a 4xx) is tried again and says nothing about the recipient.
    const refused = isPermanentRefusal(error);
    const final = refused || attempt >= SEND_ATTEMPTS;
    await recordFailedAttempt(db, { ...line, serverAnswer: answer, final, refused });
    if (final) return "failed";
    // The answer's code alone: its text may quote the address, and this error is logged and kept by the job queue.
    throw new Error(`statement email refused (attempt ${attempt} of ${SEND_ATTEMPTS}): ${serverCodeOf(error)}`);
  }
  timing(job, rendered, renderMs, sending);
  // The server took the email: recording it is not part of the send, and failing to is never a refusal. It is tried
  // a few times here, since a retry of the job would send the email again.
  const record = () =>
    db.transaction().execute(async (trx) => {
      if (await wasSendDelivered(trx, job.sendId)) return;
      await insertDeliveries(trx, [{ ...line, status: "sent", serverAnswer }]);
      // The issuer this email named stays the statement's (unless an earlier email's already is): drawn again after
      // a rename, the statement is the one its recipient has.
      await keepStatementIssuer(trx, job.statementId, rendered.doc.issuer);
      await clearDeliveryFailure(trx, { gameId: job.gameId, recipientPlayerId: line.recipientPlayerId });
      // Revoked while it was on its way (by the rule a link is opened by): it no longer opens, so the statement is
      // owed its email again.
      const revokedAt = batchId ? await getBatchLinkRevocation(trx, batchId) : null;
      if (revokedAt && linkIssuedAt <= revokedAt.getTime() && (await isLatestSend(trx, job.sendId)))
        await markSendsFailed(trx, [job.statementId]);
    });
  try {
    await recordWithRetries("statement delivery", record);
  } catch (error) {
    throw new SentNotRecorded(record, error);
  }
  return "sent";
}

/** Where a send's time went (reading and laying out the statement, the mail server), for a slow send; no address. */
function timing(job: { statementId: string }, rendered: RenderedStatement, renderMs: number, sending: number): void {
  log.debug("statement email timing", {
    statement: job.statementId,
    lines: rendered.doc.renewals.lines.length + rendered.doc.reversals.length,
    renderMs,
    sendMs: Math.round(performance.now() - sending),
  });
}
