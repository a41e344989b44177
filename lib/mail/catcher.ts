import "server-only";
import type { AddressInfo } from "node:net";
import { createDb, type Db } from "@/db";
import { insertMailMessage } from "@/db/queries/mail";

/** The largest message the catcher takes (a statement PDF is far smaller). */
const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

export type MailCatcher = { url: string; stop(): Promise<void> };

/**
 * A local SMTP server for the embedded default: it accepts every message on 127.0.0.1 (a free port) and stores it
 * whole in `mail_message`, where the admins' outbox page lists it. Nothing is relayed anywhere.
 */
export async function startMailCatcher(db: Db): Promise<MailCatcher> {
  // Loaded when a catcher starts, not by every program that could start one (a command, a page).
  const [{ simpleParser }, { SMTPServer }] = await Promise.all([import("mailparser"), import("smtp-server")]);
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    banner: "Payout Desk mail catcher",
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", async () => {
        try {
          if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded)
            return callback(Object.assign(new Error("Message too large"), { responseCode: 552 }));
          const raw = Buffer.concat(chunks);
          const parsed = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true });
          const from = session.envelope.mailFrom;
          await insertMailMessage(db, {
            mailFrom: from ? from.address : null,
            rcptTo: session.envelope.rcptTo.map((r) => r.address).join(", "),
            subject: parsed.subject ?? null,
            raw,
          });
          callback();
        } catch (error) {
          callback(error as Error);
        }
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A mail catcher on the database at `databaseUrl`, with connections of its own, closed with it. */
export async function startMailCatcherOn(databaseUrl: string): Promise<MailCatcher> {
  const catcherDb = createDb(databaseUrl, { max: 2 });
  try {
    const catcher = await startMailCatcher(catcherDb);
    return {
      url: catcher.url,
      stop: async () => {
        await catcher.stop();
        await catcherDb.destroy();
      },
    };
  } catch (error) {
    await catcherDb.destroy();
    throw error;
  }
}
