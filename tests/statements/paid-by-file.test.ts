import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { createPaymentFiles } from "@/lib/payments/files";
import { importResults } from "@/lib/payments/results";
import { changePayoutDetails } from "@/lib/profiles/profiles";
import { saveStatementSettings } from "@/lib/statements/settings";
import { statementEmail } from "@/lib/statements/email";
import { renderStatement } from "@/lib/statements/render";
import { payoutDetailsInputSchema } from "@/lib/profiles/schemas";
import { GAME, web } from "../payouts/fixtures";
import { createProfilesDatabase } from "../profiles/support";
import { approvedBatch, approver, finance, preparer, seedProfiles } from "../payments/support";
import type { TestDatabase } from "../support/db";
import { pdfText } from "./pdf-text";

/**
 * A statement paid through a payment file says what was sent: a euro payment its EUR amount and the rate, a Wise
 * payment that Wise takes its fee and converts on the way; a payment by PayPal in USD says neither.
 */

let t: TestDatabase;
let db: Db;
let batchId: string;

/** The CSV's cells, read by splitting lines and unquoting (no cell here holds a comma or a line break). */
function csvRows(csv: string): string[][] {
  return csv
    .replace(/^\uFEFF/, "")
    .trim()
    .split(/\r\n/)
    .map((line) => line.split(",").map((cell) => cell.replace(/^"|"$/g, "")));
}

async function paidStatement(recipient: number) {
  const row = await db
    .selectFrom("payout_statement")
    .select(["id", "state"])
    .where("batch_id", "=", batchId)
    .where("recipient_player_id", "=", String(recipient))
    .executeTakeFirstOrThrow();
  expect(row.state).toBe("paid");
  const rendered = await renderStatement(db, { gameId: GAME, statementId: row.id }, web(approver));
  const mail = statementEmail({
    doc: rendered.doc,
    pdf: rendered.pdf,
    from: "desk@studio.test",
    to: "r@example.test",
    link: "https://desk.test/s/x",
    linkDays: 30,
    messageId: "<statement.x@studio.test>",
  });
  return { rendered, mailText: String(mail.text), pdf: await pdfText(rendered.pdf), csv: csvRows(rendered.csv) };
}

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  db = t.db;
  await seedProfiles(db);
  const wise = payoutDetailsInputSchema.parse({
    method: "wise",
    currency: "EUR",
    wiseEmail: "kim@wise-mail.example",
    wiseName: "Kim Park",
  });
  await changePayoutDetails(db, { gameId: GAME, playerId: 6, input: wise }, finance);
  batchId = await approvedBatch(db, "2026-09", { 1: "100.00", 2: "80.00", 6: "40.00" });
  await saveStatementSettings(db, { studioName: "Northwind Games", studioAddress: "", linkDays: 30 }, web(approver));
  const files = [
    { method: "sepa", eurRate: "0.92", rateSource: "ECB reference rate", executionDate: "2026-10-05" },
    { method: "paypal" },
    { method: "wise", eurRate: "0.92", rateSource: "ECB reference rate" },
  ] as const;
  for (const file of files) await createPaymentFiles(db, { gameId: GAME, batchId, ...file }, web(preparer));
  const items = await db.selectFrom("payment_file_item").select(["reference", "amount_currency", "currency"]).execute();
  const results = items.map(
    (i) => `${i.reference},TX-${i.reference.slice(-4)},paid,${i.amount_currency},${i.currency},0,`,
  );
  const text = ["reference,provider_transaction_id,outcome,amount,currency,fee,reason", ...results].join("\r\n");
  const out = await importResults(db, { gameId: GAME, batchId, format: "generic", text, dryRun: false }, web(preparer));
  expect(out.applied).toMatchObject({ paid: 3 });
});

afterAll(async () => {
  await t?.drop();
});

describe("a statement paid through a payment file", () => {
  it("paid in EUR by SEPA: the EUR amount sent and the rate, in the email, the PDF and the CSV", async () => {
    const { mailText, pdf, csv } = await paidStatement(2);
    expect(mailText).toContain("We paid you USD 80.00, sent as EUR 73.60 (USD 1 = EUR 0.92), on 2026-10-05");
    expect(pdf).toContain("Sent as EUR 73.60 (USD 1 = EUR 0.92)");
    // In the detail: the amount column is USD.
    expect(csv).toContainEqual(["payment", "sent_as", "", "", "", "EUR 73.60 (USD 1 = EUR 0.92)"]);
  });

  it("paid in USD by PayPal: the USD amount alone", async () => {
    const { mailText, pdf, csv } = await paidStatement(1);
    expect(mailText).toContain("We paid you USD 100.00 on");
    expect(mailText).not.toContain("sent as");
    expect(pdf).not.toContain("Sent as");
    expect(csv.some((row) => row[1] === "sent_as" || row[1] === "provider")).toBe(false);
  });

  it("paid by Wise: the USD sent, and that Wise takes its fee and converts on the way", async () => {
    const { mailText, pdf } = await paidStatement(6);
    expect(mailText).toContain("We paid you USD 40.00 on");
    expect(mailText).toContain(
      "Sent in USD through Wise, which deducts its fee and converts it to EUR at its own rate.",
    );
    expect(pdf).toContain("Sent in USD through Wise");
    // Wise converts at its own rate: the desk's rate is not what the recipient got.
    expect(mailText).not.toContain("sent as");
  });
});
