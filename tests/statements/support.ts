import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerAddress } from "smtp-server";
import type { Db } from "@/db";
import { listStatementDeliveries } from "@/db/queries/statement-deliveries";
import { DEFAULT_LINK_DAYS, saveStatementSettings } from "@/lib/statements/settings";

/** What the statement tests share: a real SMTP server on a free port (each message parsed), the figures read. */

/** Says who issues the statements (Settings → Statements), as emailing them needs. */
export async function setIssuer(db: Db, studioName = "Kraków Games"): Promise<void> {
  await saveStatementSettings(
    db,
    { studioName, studioAddress: "ul. Długa 1, Kraków", linkDays: DEFAULT_LINK_DAYS },
    { actor: null, via: "cli" },
  );
}

/** How long deliveries take at most on an idle machine, and what a wait for them says when it fails. */
export const DELIVERIES = { within: 90_000, every: 200, what: "the deliveries" };

/**
 * Starts the server and points SMTP_URL and SMTP_FROM at it. `refuse` names addresses answered with a 550 at RCPT
 * TO (refused for good), `busy` addresses answered with a 451 (try again later); `hooks.beforeTaking`, when set, runs
 * while a message is being taken, before the server answers it. Close it with `smtp.close`.
 */
export async function startSmtp(
  received: ParsedMail[],
  refuse: readonly string[] = [],
  busy: readonly string[] = [],
  hooks: { beforeTaking?: () => Promise<unknown> } = {},
): Promise<SMTPServer> {
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      if (refuse.includes(address.address))
        return callback(Object.assign(new Error("5.1.1 Mailbox unavailable"), { responseCode: 550 }));
      if (busy.includes(address.address))
        // As real servers answer, quoting the address.
        return callback(Object.assign(new Error(`4.3.0 <${address.address}>: Try again later`), { responseCode: 451 }));
      callback();
    },
    onData(stream, _session, callback) {
      Promise.resolve(hooks.beforeTaking?.())
        .then(() => simpleParser(stream))
        .then(
          (mail) => {
            received.push(mail);
            callback();
          },
          (error) => callback(error),
        );
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
  process.env.SMTP_URL = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
  process.env.SMTP_FROM = "Studio Statements <statements@studio.test>";
  return smtp;
}

/** The statement figures the payouts export and the PDF both carry, by export column. */
export const FIGURE_COLUMNS = [
  "carried_in_usd",
  "gross_attributed_usd",
  "reversed_attributed_usd",
  "net_attributed_usd",
  "available_usd",
  "payable_usd",
  "carry_out_usd",
  "min_payout_usd",
] as const;

/** The send jobs the delivery log holds for these statements and not yet settled, as the queue would run them. */
export async function waitingJobs(db: Db, gameId: string, statementIds: readonly string[]) {
  const jobs = [];
  for (const statementId of statementIds) {
    const log = await listStatementDeliveries(db, { gameId, statementId });
    for (const queued of log.filter((d) => d.status === "queued")) {
      if (log.some((d) => d.sendId === queued.sendId && d.status !== "queued")) continue;
      jobs.push({ gameId, statementId, sendId: queued.sendId, to: queued.toAddress ?? "" });
    }
  }
  return jobs;
}
