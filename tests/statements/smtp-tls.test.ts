import type { AddressInfo } from "node:net";
import nodemailer from "nodemailer";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transportOptions } from "@/lib/mail/transport";

/**
 * Statements and the SMTP password never cross the network in the clear: on `smtp://` to another host STARTTLS is
 * required, so a server that does not offer it (or a network that strips it) is never sent the login. Checked against a
 * real SMTP server that offers no STARTTLS.
 */

let server: SMTPServer;
let port = 0;
const logins: string[] = [];

beforeAll(async () => {
  server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push(auth.username ?? "");
      callback(null, { user: auth.username });
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on("end", () => callback());
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  port = (server.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function send(options: object): Promise<unknown> {
  const transport = nodemailer.createTransport(options);
  try {
    await transport.sendMail({ from: "statements@studio.test", to: "anna@example.test", subject: "S", text: "Hi" });
    return null;
  } catch (error) {
    return error;
  } finally {
    transport.close();
  }
}

describe("the mail transport's TLS", () => {
  it("requires STARTTLS on smtp:// to another host, and sends no login to a server without it", async () => {
    const { url: _url, ...remote } = transportOptions("smtp://desk:secret@mail.example.com:587");
    expect(remote).toMatchObject({ requireTLS: true });
    // The same options against a server that offers no STARTTLS: refused before AUTH.
    const refused = await send({ ...remote, host: "127.0.0.1", port, auth: { user: "desk", pass: "secret" } });
    expect(refused).toBeInstanceOf(Error);
    expect(String((refused as Error).message)).toMatch(/STARTTLS/i);
    expect(logins).toEqual([]);
  });

  it("speaks to a relay on this machine as it is, and to smtps:// with TLS from the start", async () => {
    expect(await send(transportOptions(`smtp://desk:secret@127.0.0.1:${port}`))).toBeNull();
    expect(logins).toEqual(["desk"]);
    expect(transportOptions("smtp://localhost:1025")).not.toHaveProperty("requireTLS");
    expect(transportOptions("smtp://[::1]:1025")).not.toHaveProperty("requireTLS");
    expect(transportOptions("smtps://desk:secret@mail.example.com:465")).not.toHaveProperty("requireTLS");
  });

  it("lets a deliberate requireTLS=false on the URL opt out", () => {
    const remote = transportOptions("smtp://mail.example.com:587?requireTLS=false");
    const transport = nodemailer.createTransport(remote) as unknown as { transporter: { options: object } };
    expect(transport.transporter.options).toMatchObject({ requireTLS: false });
  });
});
