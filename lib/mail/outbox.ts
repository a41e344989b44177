import "server-only";
import type { AddressObject, EmailAddress } from "mailparser";
import type { Db } from "@/db";
import { getMailMessageRaw, listMailMessages, type MailMessageRow } from "@/db/queries/mail";

/** The demo's outbox: what the built-in mail catcher received, for admins to read (README, "Statements"). */

export const OUTBOX_PAGE_SIZE = 50;

export function listOutbox(db: Db, page: number): Promise<{ rows: MailMessageRow[]; total: number }> {
  return listMailMessages(db, { limit: OUTBOX_PAGE_SIZE, offset: (page - 1) * OUTBOX_PAGE_SIZE });
}

export type OutboxMessage = {
  id: string;
  receivedAt: Date;
  headers: { name: string; value: string }[];
  text: string;
  attachments: { index: number; filename: string; contentType: string; size: number }[];
};

const SHOWN_HEADERS = ["from", "to", "subject", "date", "message-id", "content-type"];

async function parse(db: Db, id: string) {
  const stored = await getMailMessageRaw(db, id);
  if (!stored) return null;
  // Loaded when a message is read: the parser and what it brings are a quarter of a second of every start otherwise.
  const { simpleParser } = await import("mailparser");
  return { stored, parsed: await simpleParser(stored.raw, { skipHtmlToText: true, skipTextToHtml: true }) };
}

export async function readOutboxMessage(db: Db, id: string): Promise<OutboxMessage | null> {
  const found = await parse(db, id);
  if (!found) return null;
  const { stored, parsed } = found;
  // The subject and the addresses' names as written: a header beyond ASCII travels encoded (RFC 2047).
  const address = (a: EmailAddress): string =>
    a.group ? a.group.map(address).join(", ") : a.name ? `${a.name} <${a.address ?? ""}>` : (a.address ?? "");
  const addresses = (found: AddressObject | AddressObject[] | undefined) =>
    (Array.isArray(found) ? found : found ? [found] : []).flatMap((a) => a.value.map(address)).join(", ");
  const decoded: Record<string, string | undefined> = {
    subject: parsed.subject,
    from: addresses(parsed.from) || undefined,
    to: addresses(parsed.to) || undefined,
  };
  const headers = parsed.headerLines
    .filter((h) => SHOWN_HEADERS.includes(h.key))
    .map((h) => {
      const colon = h.line.indexOf(":");
      return {
        name: h.line.slice(0, colon),
        value:
          decoded[h.key] ??
          h.line
            .slice(colon + 1)
            .replace(/\s+/g, " ")
            .trim(),
      };
    });
  return {
    id,
    receivedAt: stored.receivedAt,
    headers,
    text: parsed.text ?? "",
    attachments: parsed.attachments.map((a, index) => ({
      index,
      filename: a.filename ?? `attachment-${index + 1}`,
      contentType: a.contentType,
      size: a.size,
    })),
  };
}

export async function readOutboxAttachment(
  db: Db,
  id: string,
  index: number,
): Promise<{ filename: string; contentType: string; content: Buffer } | null> {
  const found = await parse(db, id);
  const attachment = found?.parsed.attachments[index];
  if (!attachment) return null;
  return {
    filename: attachment.filename ?? `attachment-${index + 1}`,
    contentType: attachment.contentType,
    content: attachment.content,
  };
}
