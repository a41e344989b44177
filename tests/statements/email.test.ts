import { createHash } from "node:crypto";
import type { ParsedMail } from "mailparser";
import type { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDeliveryFailure, listStatementDeliveries } from "@/db/queries/statement-deliveries";
import { stopWorkers, startWorkers } from "@/lib/jobs/worker";
import { formatUsdText } from "@/lib/format";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { listOpenBatchFlags } from "@/lib/payouts/open-flags";
import { SEND_ATTEMPTS } from "@/lib/statements/send-job";
import { renderBatchStatements, renderStatement } from "@/lib/statements/render";
import { queueStatementSends } from "@/lib/statements/send";
import { ISSUER_MISSING } from "@/lib/statements/settings";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { insertBatch, insertSnapshot } from "../exports/fixture";
import { statementFixture } from "./fixture";
import { SLACK } from "../support/slack";
import { waitFor } from "../support/wait";
import { pdfText } from "./pdf-text";
import { DELIVERIES, setIssuer, startSmtp } from "./support";

const GAME = "stmt-mail";
const REFUSED = "ha@example.test";
let t: TestDatabase;
let smtp: SMTPServer;
let statementIds: string[];
let batchId: string;
const received: ParsedMail[] = [];

beforeAll(async () => {
  smtp = await startSmtp(received, [REFUSED]);
  t = await createTestDatabase();
  applyTestEnv(t);
  ({ marchBatch: batchId, marchStatements: statementIds } = await statementFixture(t.db, GAME));
  await startWorkers();
});
afterAll(async () => {
  // A statement email still being rendered and sent finishes before its database is dropped (a busy machine takes
  // longer than an idle one).
  await stopWorkers({ timeoutMs: 60_000 * SLACK });
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await t?.drop();
});

describe("statement emails", () => {
  it("[finance] sends a batch: each recipient gets their statement; a 550 is marked failed at once", async () => {
    const acting = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "web" as const };
    // Until the studio says who issues its statements, none is emailed (each would name a placeholder).
    await expect(queueStatementSends(t.db, { gameId: GAME, batchId }, acting)).rejects.toMatchObject({
      code: "CONFLICT",
      message: ISSUER_MISSING,
    });
    expect(await t.db.selectFrom("statement_delivery").select("id").execute()).toEqual([]);
    await setIssuer(t.db);
    const summary = await queueStatementSends(t.db, { gameId: GAME, batchId }, acting);
    expect(summary).toMatchObject({ queued: 4, skippedNoEmail: [] });
    const finished = async (id: string) =>
      (await listStatementDeliveries(t.db, { gameId: GAME, statementId: id })).some(
        (d) => d.status === "sent" || d.final,
      );
    await waitFor(async () => (await Promise.all(statementIds.map(finished))).every(Boolean), DELIVERIES);

    expect(received.map((m) => (Array.isArray(m.to) ? "" : m.to?.text)).sort()).toEqual([
      "anna@example.test",
      "eleni@example.test",
      "zoe@example.test",
    ]);
    const anna = received.find((m) => !Array.isArray(m.to) && m.to?.text === "anna@example.test");
    expect(anna?.from?.text).toBe('"Studio Statements" <statements@studio.test>');
    expect(anna?.subject).toBe("Statement PD-stmt-mail-000001 from Kraków Games");
    expect(anna?.text).toContain("Hello Анна Петрова,");
    // The window's exclusive end is not named as a day of it.
    expect(anna?.text).toMatch(/ for 2026-03-01 to 2026-03-31 \(UTC\) is attached\./);
    expect(anna?.text).toContain(`Payable: ${formatUsdText("40.10")}`);
    expect(anna?.text).toContain("reference PAY-901");
    expect(anna?.text).toMatch(/\/api\/statement-links\/[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}/);
    expect(anna?.attachments).toHaveLength(1);
    const attachment = anna?.attachments[0];
    expect(attachment?.filename).toBe("PD-stmt-mail-000001.pdf");
    expect(attachment?.contentType).toBe("application/pdf");
    const text = await pdfText(attachment?.content ?? Buffer.alloc(0));
    expect(text).toContain(`Payable ${formatUsdText("40.10")}`);
    const eleni = received.find((m) => !Array.isArray(m.to) && m.to?.text === "eleni@example.test");
    expect(eleni?.text).toContain("is held: Waiting for a tax form.");

    const refusedId = statementIds[3] ?? "";
    const log = await listStatementDeliveries(t.db, { gameId: GAME, statementId: refusedId });
    const failures = log.filter((d) => d.status === "failed");
    // A refusal for good is not tried again: the same address would be refused the same way.
    expect(failures.map((d) => [d.attempt, d.final])).toEqual([[1, true]]);
    expect(SEND_ATTEMPTS).toBeGreaterThan(1);
    for (const f of failures) expect(f.serverAnswer).toMatch(/^550 5\.1\.1 Mailbox unavailable/);
    expect(log.filter((d) => d.status === "queued")).toHaveLength(1);
    expect(log.some((d) => d.status === "sent")).toBe(false);
    const failure = await getDeliveryFailure(t.db, { gameId: GAME, recipientPlayerId: 904 });
    expect(failure?.statementId).toBe(refusedId);
    expect(await getDeliveryFailure(t.db, { gameId: GAME, recipientPlayerId: 901 })).toBeNull();
    const sent = await listStatementDeliveries(t.db, { gameId: GAME, statementId: statementIds[0] ?? "" });
    expect(sent.map((d) => d.status).sort()).toEqual(["queued", "sent"]);
    expect(sent.find((d) => d.status === "sent")?.serverAnswer).toMatch(/^250 /);

    // The studio renamed since: a statement emailed is drawn again under the issuer its email named, alone or with
    // its batch, so the copy downloaded later is the one the recipient has; one whose email was refused has none yet.
    await setIssuer(t.db, "Northwind Games");
    try {
      const again = await renderStatement(t.db, { gameId: GAME, statementId: statementIds[0] ?? "" }, acting);
      expect(again.doc.issuer.name).toBe("Kraków Games");
      expect(await pdfText(again.pdf)).toContain("Kraków Games");
      expect(again.pdfSha256).toBe(
        createHash("sha256")
          .update(attachment?.content ?? "")
          .digest("hex"),
      );
      const issuers = new Map<string, string>();
      await renderBatchStatements(t.db, { gameId: GAME, batchId }, acting, async (rendered) => {
        issuers.set(rendered.doc.statementId, rendered.doc.issuer.name);
      });
      expect(issuers).toEqual(
        new Map(statementIds.map((id) => [id, id === refusedId ? "Northwind Games" : "Kraków Games"])),
      );
    } finally {
      await setIssuer(t.db);
    }
  });

  it("[finance] a refusal for good flags the next payout until the email changes or it is overridden", async () => {
    // April: recipient 904 is owed again, at the address the mail server refused in March.
    const month = async (start: string, end: string, email: string) => {
      const snapshotId = await insertSnapshot(t.db, { gameId: GAME, start, end, recipients: [], lines: [] });
      const { batchId: id } = await insertBatch(t.db, {
        gameId: GAME,
        snapshotId,
        status: "draft",
        statements: [
          {
            recipientId: 901,
            name: "Анна Петрова",
            email: "anna@example.test",
            gross: "30.00",
            reversed: "0.00",
            state: "draft",
          },
          { recipientId: 904, name: "Nguyễn Văn An", email, gross: "25.00", reversed: "0.00", state: "draft" },
        ],
      });
      return id;
    };
    const undeliverable = async (id: string) =>
      (await listOpenBatchFlags(t.db, { gameId: GAME, batchId: id })).filter(
        (f) => f.flag === "statement_undeliverable",
      );
    const april = await month("2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z", REFUSED);
    const open = await undeliverable(april);
    expect(open.map((f) => f.recipientPlayerId)).toEqual([904]);
    expect(open[0]?.label).toBe("Statement undeliverable");
    expect(open[0]?.detail).toMatch(
      /^statement email to ha@example\.test refused on .*: 550 5\.1\.1 Mailbox unavailable/,
    );

    // The same recipient under another address (the player record changed): nothing to flag.
    const may = await month("2026-05-01T00:00:00Z", "2026-06-01T00:00:00Z", "an.nguyen@example.test");
    expect(await undeliverable(may)).toEqual([]);

    // Finance acknowledges it: overridden with what was checked, it no longer blocks April.
    const approver = { actor: { id: "u-appr", email: "approver@payout-desk.test" }, via: "web" as const };
    await overrideFlag(
      t.db,
      {
        gameId: GAME,
        batchId: april,
        flag: "statement_undeliverable",
        recipientPlayerId: 904,
        reason: "Called the recipient: the new address is on its way from the service",
        cause: open[0]?.cause,
      },
      approver,
    );
    expect(await undeliverable(april)).toEqual([]);
  });
});
