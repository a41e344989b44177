import "server-only";
import type { DbOrTrx } from "@/db";
import { insertAuditLine } from "@/db/queries/audit";
import type { Actor, Via } from "@/core/actor";
import { commandLineAccount } from "@/lib/command-line-account";
import { TwoPersonRefusal } from "@/lib/errors";
import { log } from "@/lib/log";

export type AuditEntry = {
  actor: Actor | null;
  /** Through what the change came: the web app, the command line or a background job. */
  via: Via;
  action: string;
  gameId?: string | null;
  target?: string | null;
  idempotencyKey?: string | null;
  outcome: string;
  detail?: Record<string, unknown>;
};

/**
 * Appends one line to the audit log (the table refuses updates and deletes). The domain function that changes state
 * calls it inside its own transaction. Never pass a secret in `detail`.
 */
export async function recordAudit(db: DbOrTrx, entry: AuditEntry): Promise<void> {
  // Written by a command someone ran: the system account it ran from (lib/command-line-account.ts).
  const ranBy = entry.via === "cli" ? commandLineAccount() : null;
  await insertAuditLine(db, {
    actorId: entry.actor?.id ?? null,
    actorEmail: entry.actor?.email ?? null,
    via: entry.via,
    action: entry.action,
    gameId: entry.gameId ?? null,
    target: entry.target ?? null,
    idempotencyKey: entry.idempotencyKey ?? null,
    outcome: entry.outcome,
    detail: ranBy ? { ...entry.detail, ranBy } : (entry.detail ?? {}),
  });
}

const WRITE_TRIES = 4;

/**
 * A write recording something already done outside the database (an email the mail server took, a change the service
 * applied), tried a few times with a growing pause (0.5, 1, 2 s; or `tries` times with `pauseMs`): doing the thing
 * again is never the way to record it. Throws the last error when every try failed.
 */
export async function recordWithRetries<T>(
  what: string,
  write: () => Promise<T>,
  pauseMs = (tried: number) => 250 * 2 ** tried,
  tries = WRITE_TRIES,
): Promise<T> {
  for (let tried = 1; ; tried++) {
    try {
      return await write();
    } catch (error) {
      if (tried >= tries) throw error;
      log.warn(`${what} not recorded; trying again`, { tried, error });
      await new Promise((resolve) => setTimeout(resolve, pauseMs(tried)));
    }
  }
}

/**
 * Runs `run` and, when the two-person rule refuses it (TwoPersonRefusal, thrown inside a transaction that rolls back),
 * writes one audit line of the attempt (outcome "refused_two_person_rule", the refusal's words in its detail) before
 * passing the refusal on. A line the database refuses goes to the error log; the person is answered the same.
 */
export async function auditTwoPersonRefusals<T>(
  db: DbOrTrx,
  entry: Omit<AuditEntry, "outcome" | "idempotencyKey">,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TwoPersonRefusal) {
      await recordAuditAfterTheFact(db, {
        ...entry,
        outcome: "refused_two_person_rule",
        detail: { ...entry.detail, refused: error.message },
      });
    }
    throw error;
  }
}

/**
 * The audit line of something already done outside the database (the service applied a cancel): the database failing
 * to take it must not turn that into an error the person would act on again. Tried a few times; if it is still
 * refused, the whole line goes to the error log instead, and the caller goes on with what was done. Returns whether the
 * line was recorded.
 */
export async function recordAuditAfterTheFact(db: DbOrTrx, entry: AuditEntry): Promise<boolean> {
  try {
    await recordWithRetries("audit line", () => recordAudit(db, entry));
    return true;
  } catch (error) {
    log.error("audit line not recorded", { ...entry, actor: entry.actor?.email ?? null, error });
    return false;
  }
}
