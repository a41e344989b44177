import "server-only";
import nodemailer, { type Transporter } from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport";
import { env } from "@/lib/env";

/** The SMTP transport of statement emails (SMTP_URL); none when it is not set. */
let cached: { url: string; transport: Transporter<SMTPTransport.SentMessageInfo> } | undefined;

export function mailTransport(url = env().SMTP_URL): Transporter<SMTPTransport.SentMessageInfo> | null {
  if (!url) return null;
  if (cached?.url !== url) {
    cached?.transport.close();
    cached = {
      url,
      transport: nodemailer.createTransport({
        url,
        connectionTimeout: 15_000,
        greetingTimeout: 15_000,
        socketTimeout: 60_000,
      } as SMTPTransport.Options),
    };
  }
  return cached.transport;
}

export function mailFrom(): string {
  return env().SMTP_FROM;
}

/** The server's answer of a failed send, in one line ("550 5.1.1 mailbox unavailable"), for the delivery log. */
export function serverAnswerOf(error: unknown): string {
  const e = error as { response?: string; responseCode?: number; code?: string; message?: string };
  const text = e.response ?? (e.responseCode ? `${e.responseCode} ${e.message ?? ""}` : null) ?? e.message ?? "failed";
  return `${e.code && !e.response ? `${e.code}: ` : ""}${text}`.replace(/\s+/g, " ").slice(0, 500);
}

/**
 * Whether the mail server refused the message for good (a 5xx answer: no such mailbox, domain, policy), as opposed to
 * a failure that says nothing about the address (no server, a timeout, a 4xx "try later").
 */
export function isPermanentRefusal(error: unknown): boolean {
  const code = (error as { responseCode?: number }).responseCode;
  return typeof code === "number" && code >= 500 && code < 600;
}
