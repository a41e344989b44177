import "server-only";
import type { Db, Trx } from "@/db";
import {
  findQueuedSend,
  insertDeliveries,
  isSendSettled,
  markDeliveryFailed,
  markSendsFailed,
} from "@/db/queries/statement-deliveries";
import { isLatestSend } from "@/db/queries/statement-links";
import { recordAudit } from "@/lib/audit";

/**
 * The delivery log's writers for a send that did not simply go out and get recorded: withheld (its batch's links
 * revoked), failed, given up, or taken by the mail server but not recorded.
 */

/**
 * An email the mail server took whose delivery could not be recorded (the database failing through every try). A
 * retry of its job sends it again (mail is at least once); the job's last attempt tries again to record it as sent
 * instead (`recordAgain`), never as not sent. Should that fail too, the job a failed send leaves records it as having
 * no result (lib/statements/send-given-up-job.handler.ts).
 */
export class SentNotRecorded extends Error {
  constructor(
    readonly recordAgain: () => Promise<void>,
    cause: unknown,
  ) {
    super("statement email sent, its delivery not recorded", { cause });
  }
}

/** One attempt of a send, as the delivery log records it. */
export type DeliveryLine = {
  statementId: string;
  gameId: string;
  recipientPlayerId: number;
  sendId: string;
  toAddress: string;
  attempt: number;
};

export const WITHHELD_ANSWER =
  "not sent: the batch's statement links were revoked after this email was queued; " +
  "email the statement again to send it";

/**
 * A send queued before its batch's links were revoked: a final failure in the delivery log, its statement offered
 * again by the batch's send (unless emailed again since), audited. Not the recipient's failed delivery: nothing was
 * wrong with their address.
 */
export async function recordWithheld(db: Db, line: DeliveryLine): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await insertDeliveries(trx, [{ ...line, status: "failed", final: true, serverAnswer: WITHHELD_ANSWER }]);
    // Owed again, unless the statement was emailed again since (that later email stands for it).
    if (await isLatestSend(trx, line.sendId)) await markSendsFailed(trx, [line.statementId]);
    await auditDelivery(trx, line, "withheld", { reason: "statement links revoked after the email was queued" });
  });
}

export const SUPERSEDED_ANSWER =
  "not sent: a later email of this statement was queued, which sends the statement as it is then";

/**
 * A send not yet gone out when a later one of the same statement was queued (its payment, or its return, recorded in
 * between): a final failure in the delivery log, audited, and nothing owed, since the later email stands for it and
 * shows the statement as it is when it goes out. The recipient gets one email, not two alike.
 */
export async function recordSuperseded(db: Db, line: DeliveryLine): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await insertDeliveries(trx, [{ ...line, status: "failed", final: true, serverAnswer: SUPERSEDED_ANSWER }]);
    await auditDelivery(trx, line, "superseded", { reason: "a later email of this statement was queued" });
  });
}

/** Whether a final line of the delivery log is a send held back on purpose (withheld, overtaken), not a refusal. */
export function isHeldBack(serverAnswer: string | null): boolean {
  return serverAnswer === WITHHELD_ANSWER || serverAnswer === SUPERSEDED_ANSWER;
}

/** The audit line of a send's end other than going out (a job's own: nobody acted). */
function auditDelivery(trx: Trx, line: DeliveryLine, outcome: string, detail: Record<string, unknown>): Promise<void> {
  return recordAudit(trx, {
    actor: null,
    via: "job",
    action: "statement.delivery",
    gameId: line.gameId,
    target: line.statementId,
    outcome,
    detail,
  });
}

/**
 * One failed attempt in the delivery log; a final one (refused for good, or the last attempt) is audited and, when
 * its send is the statement's latest, also marks the recipient as having a failed delivery (a refusal for good raises
 * `statement_undeliverable` on their profile, lib/profiles/flags.ts) and the statement as owed its email. A send
 * overtaken by a later one of the same statement (queued while this one ran its last attempt, or before its worker's
 * end was noticed) marks neither: the later email stands for the statement, and its own outcome says how the
 * address fares.
 */
export async function recordFailedAttempt(
  db: Db,
  failed: DeliveryLine & {
    serverAnswer: string;
    final: boolean;
    refused: boolean;
  },
): Promise<void> {
  const { refused, ...line } = failed;
  await db.transaction().execute(async (trx) => {
    await insertDeliveries(trx, [{ ...line, status: "failed" }]);
    if (!line.final) return;
    if (await isLatestSend(trx, line.sendId)) await markDeliveryFailed(trx, { ...line, refused });
    await auditDelivery(trx, line, "failed", { attempts: line.attempt, serverAnswer: line.serverAnswer, refused });
  });
}

/**
 * Records a send that failed before reaching the mail server on its last attempt (the statement could not be read or
 * laid out, the database failed: "not sent: …") or ended without a result (its worker died, it expired: "no result:
 * …"): a final failure, not a refusal, so the batch's send offers the statement again instead of counting it as
 * emailed. Called by the job's handler and by the job a failed send leaves; a send already recorded sent or failed for
 * good is left.
 */
export async function recordSendGivenUp(
  db: Db,
  job: { sendId: string; to: string },
  attempt: number,
  answer: string,
): Promise<void> {
  const queued = await findQueuedSend(db, job.sendId);
  if (queued === null || (await isSendSettled(db, job.sendId))) return;
  const serverAnswer = answer.slice(0, 500);
  const line = { ...queued, sendId: job.sendId, toAddress: job.to, attempt, serverAnswer };
  await recordFailedAttempt(db, { ...line, final: true, refused: false });
}

/** An error's own words, for a delivery log line. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
