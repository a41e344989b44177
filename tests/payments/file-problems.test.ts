import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { downloadPaymentFile } from "@/lib/payments/file-access";
import { createPaymentFiles } from "@/lib/payments/files";
import { importResults } from "@/lib/payments/results";
import { changePayoutDetails } from "@/lib/profiles/profiles";
import { type PayoutDetails, payoutDetailsInputSchema } from "@/lib/profiles/schemas";
import { sealDetails } from "@/lib/profiles/seal";
import { createProfilesDatabase } from "../profiles/support";
import { GAME, web } from "../payouts/fixtures";
import type { TestDatabase } from "../support/db";
import { approvedBatch, approver, finance, preparer } from "./support";

/**
 * Details a file cannot carry (kept from before a rule of the files) leave their recipient out, saying whose details
 * and what to mend, and everyone else's file is made.
 */

let t: TestDatabase;

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
});
afterAll(async () => t?.drop());

/** Stores a recipient's details as a rule of the files since would refuse them (saved before it). */
async function storeAsBefore(playerId: number, details: PayoutDetails): Promise<void> {
  const profile = await t.db
    .selectFrom("payout_profile")
    .select("seal_ref")
    .where("player_id", "=", String(playerId))
    .executeTakeFirstOrThrow();
  await t.db
    .updateTable("payout_profile")
    .set({ details_sealed: await sealDetails(t.db, details, profile.seal_ref) })
    .where("player_id", "=", String(playerId))
    .execute();
}

describe("a payment file with a recipient whose details it cannot carry", () => {
  it("leaves that recipient out, saying why, and pays the others", async () => {
    const bank = (accountHolder: string) =>
      payoutDetailsInputSchema.parse({
        method: "bank_transfer",
        currency: "EUR",
        accountHolder,
        iban: "DE89370400440532013000",
        bic: "COBADEFFXXX",
        bankCountry: "DE",
      });
    const details = bank("Li Xiaolong");
    await changePayoutDetails(t.db, { gameId: GAME, playerId: 7, input: details }, finance);
    await changePayoutDetails(t.db, { gameId: GAME, playerId: 9, input: bank("Mia Berg") }, finance);
    // Details kept from before the euro transfer's name rule: the holder's name in Chinese characters alone.
    const { currency: _, ...stored } = { ...details, accountHolder: "李小龍" };
    await storeAsBefore(7, stored as PayoutDetails);
    const batchId = await approvedBatch(t.db, "2026-04", { 7: "30.00", 9: "20.00" });
    const made = await createPaymentFiles(
      t.db,
      { gameId: GAME, batchId, method: "sepa", eurRate: "0.92", rateSource: "ECB", executionDate: "2026-05-04" },
      web(preparer),
    );
    expect(made.files).toHaveLength(1);
    expect(made.inPayment).toBe(1);
    expect(made.totalUsd).toBe("20.00");
    expect(made.refused).toEqual([
      {
        statementId: expect.any(String),
        recipientPlayerId: 7,
        reason: "account holder has no letters of the SEPA character set: save the payout details again on the profile",
      },
    ]);
  });

  it("a QR-IBAN stored before it was refused: read as stored, left out of the file, details changeable", async () => {
    const swiss = (iban: string) => ({
      method: "bank_transfer" as const,
      accountHolder: "Lea Meier",
      iban,
      bic: "UBSWCHZH80A",
      bankCountry: "CH",
    });
    const details = payoutDetailsInputSchema.parse({ ...swiss("CH9300762011623852957"), currency: "EUR" });
    await changePayoutDetails(t.db, { gameId: GAME, playerId: 11, input: details }, finance);
    // A QR-IBAN (bank id 30000 to 31999) takes QR-bill payments only: refused as entered now, kept from before.
    expect(payoutDetailsInputSchema.safeParse({ ...swiss("CH4431999123000889012"), currency: "EUR" }).success).toBe(
      false,
    );
    await storeAsBefore(11, swiss("CH4431999123000889012"));
    const batchId = await approvedBatch(t.db, "2026-08", { 11: "30.00", 9: "20.00" });
    const made = await createPaymentFiles(
      t.db,
      { gameId: GAME, batchId, method: "sepa", eurRate: "0.92", rateSource: "ECB", executionDate: "2026-09-04" },
      web(preparer),
    );
    expect(made.inPayment).toBe(1);
    expect(made.totalUsd).toBe("20.00");
    expect(made.refused).toEqual([
      {
        statementId: expect.any(String),
        recipientPlayerId: 11,
        reason: "IBAN is a QR-IBAN, which takes only QR-bill payments: save the payout details again on the profile",
      },
    ]);
    // The remedy the reason names: new details are saved over the stored ones.
    const mended = payoutDetailsInputSchema.parse({
      ...swiss("CH9300762011623852957"),
      accountHolder: "Lea M. Meier",
      currency: "EUR",
    });
    await expect(
      changePayoutDetails(t.db, { gameId: GAME, playerId: 11, input: mended }, finance),
    ).resolves.toBeDefined();
  });
});

describe("a bank's status report about a whole SEPA file", () => {
  /** A pain.002 of the file `messageId`: its status and reason, and the transactions it lists (reference, status). */
  function wholeFileReport(
    messageId: string,
    status: string,
    options: { reason?: string; transactions?: { reference: string; status: string; reason: string }[] } = {},
  ): string {
    const transactions = (options.transactions ?? [])
      .map(
        (tx) => `<TxInfAndSts><OrgnlEndToEndId>${tx.reference}</OrgnlEndToEndId><TxSts>${tx.status}</TxSts>
        <StsRsnInf><Rsn><Cd>${tx.reason}</Cd></Rsn></StsRsnInf>
        <OrgnlTxRef><Amt><InstdAmt Ccy="EUR">36.80</InstdAmt></Amt></OrgnlTxRef></TxInfAndSts>`,
      )
      .join("");
    const block = transactions
      ? `<OrgnlPmtInfAndSts><OrgnlPmtInfId>P1</OrgnlPmtInfId>${transactions}</OrgnlPmtInfAndSts>`
      : "";
    return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10"><CstmrPmtStsRpt>
  <GrpHdr><MsgId>STS-1</MsgId><CreDtTm>2026-06-05T09:00:00Z</CreDtTm></GrpHdr>
  <OrgnlGrpInfAndSts><OrgnlMsgId>${messageId}</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.09</OrgnlMsgNmId>
    <GrpSts>${status}</GrpSts><StsRsnInf><Rsn><Cd>${options.reason ?? "AM04"}</Cd></Rsn></StsRsnInf></OrgnlGrpInfAndSts>
  ${block}
</CstmrPmtStsRpt></Document>`;
  }

  it("names the batch's file it rejects, and refuses a report about a file of no batch of this one", async () => {
    await changePayoutDetails(
      t.db,
      {
        gameId: GAME,
        playerId: 8,
        input: payoutDetailsInputSchema.parse({
          method: "bank_transfer",
          currency: "EUR",
          accountHolder: "Ana Lima",
          iban: "DE89370400440532013000",
          bic: "COBADEFFXXX",
          bankCountry: "DE",
        }),
      },
      finance,
    );
    const batchId = await approvedBatch(t.db, "2026-05", { 8: "40.00" });
    const dayBefore = new Date().toISOString().slice(0, 10);
    // The day before UTC's today, as a person whose day is behind UTC's may give it.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const made = await createPaymentFiles(
      t.db,
      { gameId: GAME, batchId, method: "sepa", eurRate: "0.92", rateSource: "ECB", executionDate: yesterday },
      web(preparer),
    );
    const file = made.files[0];
    if (!file) throw new Error("no file made");
    const { content } = await downloadPaymentFile(t.db, { gameId: GAME, fileId: file.id }, web(approver));
    // The MsgId as the bank received it, read from the XML sent.
    const messageId = /<GrpHdr>\s*<MsgId>([^<]+)<\/MsgId>/.exec(content)?.[1];
    if (!messageId) throw new Error("no MsgId in the file");
    // The day gone by is asked of the bank as UTC's today.
    const asked = /<ReqdExctnDt>\s*<Dt>([^<]+)<\/Dt>/.exec(content)?.[1];
    expect([dayBefore, new Date().toISOString().slice(0, 10)]).toContain(asked);
    // The file records the day it asks for (a payment recorded from its results without a day is dated by it).
    const stored = await sql<{ day: string }>`select execution_date::text as day from payment_file
      where id = ${file.id}`.execute(t.db);
    expect(stored.rows[0]?.day).toBe(asked);
    const importing = (text: string) =>
      importResults(t.db, { gameId: GAME, batchId, format: "pain002", text, dryRun: true }, web(approver));
    await expect(importing(wholeFileReport(messageId, "RJCT"))).rejects.toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringContaining(
        `The bank rejected the whole payment file ${file.fileName} (RJCT (AM04)) and lists no transaction: ` +
          "nothing was paid. Cancel that file here",
      ),
    });
    await expect(importing(wholeFileReport("PD-202604-00000000-EUR", "RJCT"))).rejects.toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringMatching(
        /^This status report answers message PD-202604-00000000-EUR, which is not a SEPA file of this batch/,
      ),
    });
    await expect(importing(wholeFileReport("PD-202604-00000000-EUR", "RJCT"))).rejects.not.toMatchObject({
      message: expect.stringMatching(/Cancel/),
    });

    // Rejected whole, listing only the transaction that caused it: nothing of the file was paid, the listed one too.
    const item = await t.db
      .selectFrom("payment_file_item")
      .select("reference")
      .where("file_id", "=", file.id)
      .executeTakeFirstOrThrow();
    const cause = [{ reference: item.reference, status: "RJCT", reason: "AC01" }];
    await expect(importing(wholeFileReport(messageId, "RJCT", { transactions: cause }))).rejects.toMatchObject({
      message: expect.stringContaining(
        `${file.fileName} (RJCT (AM04)) and lists 1 transaction of it: nothing was paid`,
      ),
    });
    // Rejected as a duplicate (uploaded twice): the first upload's payments stand, so nothing says to pay again.
    const duplicate = importing(wholeFileReport(messageId, "RJCT", { reason: "DU01" }));
    await expect(duplicate).rejects.toMatchObject({
      message: expect.stringMatching(/as a duplicate \(RJCT \(DU01\)\).* Do not cancel the file or make a new one/),
    });
    await expect(duplicate).rejects.not.toMatchObject({ message: expect.stringMatching(/nothing was paid/) });
    // One payment rejected as a duplicate of one the bank has: listed, never read as owed again.
    const again = [{ reference: item.reference, status: "RJCT", reason: "AM05" }];
    await expect(importing(wholeFileReport(messageId, "PART", { transactions: again }))).rejects.toMatchObject({
      message: expect.stringMatching(/^No result could be read: line 1: rejected as a duplicate \(AM05\)/),
    });
  });
});

describe("a results file none of whose lines can be read", () => {
  it("names the first line and why, and how many more", async () => {
    const text = [
      "Customer ID,Transaction ID,Status,Amount,Currency,Fee,Reason",
      'PAYOUTGAM-202605-AAAAAAAAAAAA,TX-1,SUCCESS,"12,34",EUR,0,',
      'PAYOUTGAM-202605-BBBBBBBBBBBB,TX-2,SUCCESS,"100,50",EUR,0,',
    ].join("\r\n");
    await expect(
      importResults(
        t.db,
        { gameId: GAME, batchId: "00000000-0000-4000-8000-000000000000", format: "paypal", text, dryRun: true },
        web(approver),
      ),
    ).rejects.toMatchObject({
      code: "INVALID_INPUT",
      message:
        "No result could be read: line 2: amount is not an amount (a decimal point and, if any, thousands commas: " +
        "1,234.56) (and 1 more line).",
    });
  });
});
