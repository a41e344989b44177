import "server-only";
import type { DbOrTrx } from "@/db";

/** What the built-in mail catcher received: the demo's outbox (README, "Statements"). */

export async function insertMailMessage(
  db: DbOrTrx,
  params: { mailFrom: string | null; rcptTo: string; subject: string | null; raw: Buffer },
): Promise<string> {
  const row = await db
    .insertInto("mail_message")
    .values({ mail_from: params.mailFrom, rcpt_to: params.rcptTo, subject: params.subject, raw: params.raw })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

export type MailMessageRow = {
  id: string;
  receivedAt: Date;
  mailFrom: string | null;
  rcptTo: string;
  subject: string | null;
};

export async function listMailMessages(
  db: DbOrTrx,
  params: { limit: number; offset: number },
): Promise<{ rows: MailMessageRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom("mail_message")
      .select(["id", "received_at", "mail_from", "rcpt_to", "subject"])
      .orderBy("received_at", "desc")
      .orderBy("id")
      .limit(params.limit)
      .offset(params.offset)
      .execute(),
    db
      .selectFrom("mail_message")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirst(),
  ]);
  return {
    rows: rows.map((r) => ({
      id: r.id,
      receivedAt: r.received_at,
      mailFrom: r.mail_from,
      rcptTo: r.rcpt_to,
      subject: r.subject,
    })),
    total: Number(count?.n ?? 0),
  };
}

export async function getMailMessageRaw(db: DbOrTrx, id: string): Promise<{ raw: Buffer; receivedAt: Date } | null> {
  const row = await db
    .selectFrom("mail_message")
    .select(["raw", "received_at"])
    .where("id", "=", id)
    .executeTakeFirst();
  return row ? { raw: row.raw, receivedAt: row.received_at } : null;
}
