import type { AddressInfo } from "node:net";
import nodemailer from "nodemailer";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPermanentRefusal } from "@/lib/mail/transport";

/**
 * What a mail server's refusal says about the recipient, read from the errors nodemailer gives for a real server's
 * answers: only an address refused at RCPT TO is undeliverable for good.
 */
const refuse = (code: number, text: string) => Object.assign(new Error(text), { responseCode: code });

let server: SMTPServer;
let port = 0;

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.password !== "right") return callback(refuse(535, "5.7.8 Authentication failed"));
      callback(null, { user: auth.username });
    },
    onMailFrom(address, _session, callback) {
      if (address.address.startsWith("not-ours")) return callback(refuse(553, "5.7.1 Sender not allowed"));
      callback();
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith("gone")) return callback(refuse(550, "5.1.1 Mailbox unavailable"));
      if (address.address.startsWith("busy")) return callback(refuse(451, "4.3.0 Try again later"));
      if (address.address.startsWith("relay")) return callback(refuse(554, "5.7.1 Relay access denied"));
      if (address.address.startsWith("unrelayed")) return callback(refuse(550, "5.7.1 Unable to relay"));
      if (address.address.startsWith("plain550")) return callback(refuse(550, "Mailbox unavailable"));
      if (address.address.startsWith("plain554")) return callback(refuse(554, "Transaction failed"));
      if (address.address.startsWith("nullmx")) return callback(refuse(556, "5.1.10 Domain does not accept mail"));
      if (address.address.startsWith("disabled")) return callback(refuse(550, "5.2.1 Mailbox disabled"));
      if (address.address.startsWith("other")) return callback(refuse(550, "5.1.0 Address rejected"));
      callback();
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on("end", () => (stream.sizeExceeded ? callback(refuse(552, "5.3.4 Message too big")) : callback()));
    },
    size: 2_000,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  port = (server.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function failureOf(options: { password?: string; from?: string; to?: string; body?: string }): Promise<unknown> {
  const auth = options.password ? { user: "desk", pass: options.password } : undefined;
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, auth });
  try {
    await transport.sendMail({
      from: options.from ?? "statements@studio.test",
      to: options.to ?? "anna@example.test",
      subject: "Statement",
      text: options.body ?? "Hello",
    });
    return null;
  } catch (error) {
    return error;
  } finally {
    transport.close();
  }
}

describe("a mail server's refusal", () => {
  it("is for good only when the recipient's address is refused at RCPT TO with a 5xx", async () => {
    expect(await failureOf({})).toBeNull();
    const gone = await failureOf({ to: "gone@example.test" });
    expect(gone).toMatchObject({ responseCode: 550, command: "RCPT TO" });
    expect(isPermanentRefusal(gone)).toBe(true);
    expect(isPermanentRefusal(await failureOf({ to: "busy@example.test" }))).toBe(false);
    for (const to of ["plain550", "nullmx", "disabled", "other"])
      expect(isPermanentRefusal(await failureOf({ to: `${to}@example.test` })), to).toBe(true);
  });

  it("says nothing about the recipient when the relay refuses the desk at RCPT TO", async () => {
    const relay = await failureOf({ to: "relay@example.test" });
    expect(relay).toMatchObject({ responseCode: 554, command: "RCPT TO" });
    expect(isPermanentRefusal(relay)).toBe(false);
    for (const to of ["unrelayed", "plain554"])
      expect(isPermanentRefusal(await failureOf({ to: `${to}@example.test` })), to).toBe(false);
  });

  it("says nothing about the recipient when the desk's own setup is refused", async () => {
    const wrongPassword = await failureOf({ password: "wrong" });
    expect(wrongPassword).toMatchObject({ responseCode: 535 });
    const sender = await failureOf({ from: "not-ours@studio.test" });
    expect(sender).toMatchObject({ responseCode: 553 });
    const tooBig = await failureOf({ body: "x".repeat(10_000) });
    expect(tooBig).toMatchObject({ responseCode: 552 });
    for (const failure of [wrongPassword, sender, tooBig]) expect(isPermanentRefusal(failure)).toBe(false);
  });
});
