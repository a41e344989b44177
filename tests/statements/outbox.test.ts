import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MailCatcher, startMailCatcher } from "@/lib/mail/catcher";
import { listOutbox, readOutboxAttachment, readOutboxMessage } from "@/lib/mail/outbox";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

let t: TestDatabase;
let catcher: MailCatcher;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  catcher = await startMailCatcher(t.db);
});
afterAll(async () => {
  await catcher?.stop();
  await t?.drop();
});

describe("the built-in mail catcher and the outbox", () => {
  it("stores what it receives; the outbox lists it and opens headers, body and attachment", async () => {
    expect(catcher.url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    const transport = nodemailer.createTransport({ url: catcher.url } as never);
    const pdf = Buffer.from("%PDF-1.7 test attachment");
    await transport.sendMail({
      from: "Studio <statements@studio.test>",
      to: "Ελένη <eleni@example.test>",
      subject: "Statement PD-g-000003 from Jeux Étoilés",
      text: "Hello Ελένη,\nyour statement is attached.",
      attachments: [{ filename: "PD-g-000003.pdf", content: pdf, contentType: "application/pdf" }],
    });
    transport.close();
    const { rows, total } = await listOutbox(t.db, 1);
    expect(total).toBe(1);
    expect(rows[0]).toMatchObject({
      rcptTo: "eleni@example.test",
      mailFrom: "statements@studio.test",
      subject: "Statement PD-g-000003 from Jeux Étoilés",
    });
    const message = await readOutboxMessage(t.db, rows[0]?.id ?? "");
    const header = (name: string) => message?.headers.find((h) => h.name.toLowerCase() === name)?.value;
    // Headers read as written, not as sent (a name or subject beyond ASCII travels encoded).
    expect(header("subject")).toBe("Statement PD-g-000003 from Jeux Étoilés");
    expect(header("from")).toBe("Studio <statements@studio.test>");
    expect(header("to")).toBe("Ελένη <eleni@example.test>");
    expect(message?.text).toContain("Hello Ελένη,");
    expect(message?.attachments).toEqual([
      { index: 0, filename: "PD-g-000003.pdf", contentType: "application/pdf", size: pdf.length },
    ]);
    const attachment = await readOutboxAttachment(t.db, rows[0]?.id ?? "", 0);
    expect(attachment?.content.equals(pdf)).toBe(true);
    expect(await readOutboxAttachment(t.db, rows[0]?.id ?? "", 1)).toBeNull();
    expect(await readOutboxMessage(t.db, "00000000-0000-4000-8000-000000000000")).toBeNull();
  });
});
