import "server-only";
import { domainToASCII } from "node:url";
import nodemailer, { type Transporter } from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport";
import { env } from "@/lib/env";

/** The SMTP transport of statement emails (SMTP_URL); none when it is not set. */
let cached: { url: string; transport: Transporter<SMTPTransport.SentMessageInfo> } | undefined;

export function mailTransport(url = env().SMTP_URL): Transporter<SMTPTransport.SentMessageInfo> | null {
  if (!url) return null;
  if (cached?.url !== url) {
    cached?.transport.close();
    cached = { url, transport: nodemailer.createTransport(transportOptions(url)) };
  }
  return cached.transport;
}

/** This machine's own addresses: the built-in mail catcher, a relay on the same host. */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The transport's options for SMTP_URL. On `smtp://` to another host, STARTTLS is required: a server that does not
 * offer it (or a network that strips it from the greeting) gets neither the SMTP password nor a statement in the clear,
 * and the send fails as the desk's own setup (retried). `smtps://` is TLS from the start; a relay on this machine
 * (the built-in mail catcher) is spoken to as it is. A deliberate `?requireTLS=false` on the URL opts out.
 */
export function transportOptions(url: string): SMTPTransport.Options {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  const requireTLS = parsed?.protocol === "smtp:" && !isLoopback(parsed.hostname);
  return {
    url,
    ...(requireTLS ? { requireTLS: true } : {}),
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  } as SMTPTransport.Options;
}

export function mailFrom(): string {
  return env().SMTP_FROM;
}

/**
 * A message id that is the same on every attempt of one send (`<statement.<send id>@<domain>>`, the domain of the
 * sender's address): an email that goes out twice (the server took it, and the record of it was lost, so a retry sent
 * it again) is one message to the recipient's mail client, which shows it once.
 */
export function sendMessageId(kind: string, sendId: string, from = mailFrom()): string {
  return `<${kind}.${sendId}@${messageIdDomain(from)}>`;
}

/** The sender's domain as a message id takes it: in ASCII (IDNA), no trailing dot; an address literal as it is. */
function messageIdDomain(from: string): string {
  const address = /<([^<>]*)>\s*$/.exec(from)?.[1] ?? from;
  const domain = address.slice(address.lastIndexOf("@") + 1).trim();
  if (/^\[[^[\]\s]+\]$/.test(domain)) return domain;
  const ascii = domainToASCII(domain.replace(/\.+$/, ""));
  return ascii && /^[A-Za-z0-9_.-]+$/.test(ascii) ? ascii : "payout-desk.invalid";
}

/** The server's answer of a failed send, in one line ("550 5.1.1 mailbox unavailable"), for the delivery log. */
export function serverAnswerOf(error: unknown): string {
  const e = error as { response?: string; responseCode?: number; code?: string; message?: string };
  const text = e.response ?? (e.responseCode ? `${e.responseCode} ${e.message ?? ""}` : null) ?? e.message ?? "failed";
  return `${e.code && !e.response ? `${e.code}: ` : ""}${text}`.replace(/\s+/g, " ").slice(0, 500);
}

/**
 * The code of a failed send's answer alone ("450 4.2.0"), or the failure's own code without an answer
 * ("ECONNREFUSED"): for the error a retry is thrown with, which the job queue logs and keeps. The answer's text often
 * quotes the recipient's address ("<kim@example.org>: Recipient address rejected"); only the delivery log keeps it.
 */
export function serverCodeOf(error: unknown): string {
  const e = error as { response?: string; responseCode?: number; code?: string };
  const enhanced = /^\d{3}[ -](\d\.\d{1,3}\.\d{1,3})\b/.exec(e.response ?? "")?.[1];
  if (typeof e.responseCode === "number") return enhanced ? `${e.responseCode} ${enhanced}` : String(e.responseCode);
  return typeof e.code === "string" && /^[A-Z0-9_]{2,40}$/.test(e.code) ? e.code : "no answer";
}

/**
 * Enhanced status codes (RFC 3463) that say the address itself is wrong: other address status, bad mailbox, domain or
 * syntax, moved, null MX, mailbox disabled. Not 5.4.1 ("no answer from host", a routing failure, though one provider
 * also answers an unknown recipient with it): retried, and failed for that send only.
 */
const ADDRESS_REFUSED = new Set(["1.0", "1.1", "1.2", "1.3", "1.6", "1.10", "2.1"]);

/**
 * Whether the mail server refused the recipient's address for good: a 5xx answer to RCPT TO whose enhanced code says
 * the address is wrong (5.1.0 and 5.1.1 no such mailbox, 5.1.2 no such domain, 5.1.3 bad syntax, 5.1.6 moved, 5.1.10
 * null MX, 5.2.1 disabled), or, without an enhanced code, 550, 551 or 553. Any other 5xx at RCPT TO is about the desk
 * as much as the address (5.7.1 "relay access denied" when the relay does not trust the desk's host, a policy, a bare
 * 554); a 5xx to another command says nothing about the address (a wrong password at AUTH, a sender the server does not
 * take at MAIL FROM, a message too large at DATA); nor does a failure without an answer (no server, a timeout) or a 4xx
 * "try later". Those are retried, and failed for this send only, never counted against the address.
 */
export function isPermanentRefusal(error: unknown): boolean {
  const e = error as { responseCode?: number; command?: string; response?: string };
  if (e.command !== "RCPT TO" || typeof e.responseCode !== "number") return false;
  if (e.responseCode < 500 || e.responseCode > 599) return false;
  const enhanced = /^\d{3}[ -]5\.(\d{1,3}\.\d{1,3})\b/.exec(e.response ?? "")?.[1];
  if (enhanced) return ADDRESS_REFUSED.has(enhanced);
  return e.responseCode === 550 || e.responseCode === 551 || e.responseCode === 553;
}
