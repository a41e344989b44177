import Decimal from "decimal.js";
import type { ParsedMail } from "mailparser";
import type { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { listStatementDeliveries } from "@/db/queries/statement-deliveries";
import { mapAccount } from "@/lib/accounting/accounts";
import { isAppError } from "@/lib/errors";
import { payoutsExport } from "@/lib/exports/payouts";
import { startExport } from "@/lib/exports/run";
import type { ExportKind } from "@/lib/exports/types";
import { formatUsdText } from "@/lib/format";
import { startWorkers, stopWorkers } from "@/lib/jobs/worker";
import { createPaymentFiles } from "@/lib/payments/files";
import { importResults } from "@/lib/payments/results";
import { approvePayoutBatch, markStatementsPaid } from "@/lib/payouts/batch-approval";
import { approveStatements, holdStatements, preparePayoutBatch } from "@/lib/payouts/batches";
import { changePayoutDetails, reviewPayoutChange } from "@/lib/profiles/profiles";
import { renderBatchStatements, type RenderedStatement, renderStatement } from "@/lib/statements/render";
import { queueChangedStatementEmails, queuePaidStatementEmails } from "@/lib/statements/send";
import { monthWindow } from "@/lib/time";
import { GAME, insertSnapshot, web } from "../payouts/fixtures";
import { approver, finance, paypal, preparer } from "../payments/support";
import { createProfilesDatabase } from "../profiles/support";
import { readCsv } from "../support/csv";
import type { TestDatabase } from "../support/db";
import { SLACK } from "../support/slack";
import { waitFor } from "../support/wait";
import { pdfText } from "./pdf-text";
import { DELIVERIES, FIGURE_COLUMNS, setIssuer, startSmtp } from "./support";

/**
 * A batch paid through a PayPal file, one payment of which later comes back, against real PostgreSQL and a real SMTP
 * server: the statements (PDF text read back with a PDF text extractor) agree with the payouts export and with the
 * Xero and QuickBooks journals, read here by a small reader written from the ledgers' import rules.
 *
 * | recipient              | August            | September                                        |
 * |------------------------|-------------------|--------------------------------------------------|
 * | 1 Анна Петрова         | 50.00             | 100.00, paid                                     |
 * | 2 Ελένη Παπαδοπούλου   | 40.00             | 80.00, held                                      |
 * | 4 Nguyễn Văn An        | 30.00             | 60.00, paid, then returned by PayPal             |
 * | 5 Zoë                  | 6.00 rolls over   | 7.25 + 6.00 carried in = 13.25, paid             |
 */

const NAMES: Record<number, string> = { 1: "Анна Петрова", 2: "Ελένη Παπαδοπούλου", 4: "Nguyễn Văn An", 5: "Zoë" };
const CODES = { expense: "6100", payable: "2150", clearing: "1090", returns: "1095" } as const;
const TAX = "BAS Excluded";
const HOLD = "Waiting for a tax form";
let t: TestDatabase;
let db: Db;
let smtp: SMTPServer;
let batchId: string;
const received: ParsedMail[] = [];
const refs = new Map<number, string>();
const rendered: RenderedStatement[] = [];
const exported = new Map<number, Record<string, string | null>>();

/** A month prepared from the snapshot, `hold` held with a reason, the rest approved, the batch approved by two. */
async function month(key: string, gross: Record<number, string>, hold: number[] = []): Promise<string> {
  await insertSnapshot(db, {
    window: key,
    recipients: Object.entries(gross).map(([id, g]) => ({ id: Number(id), gross: g, name: NAMES[Number(id)] })),
  });
  const { batchId: id } = await preparePayoutBatch(db, { gameId: GAME, window: monthWindow(key) }, web(preparer));
  const statements = await db
    .selectFrom("payout_statement")
    .select(["id", "recipient_player_id"])
    .where("batch_id", "=", id)
    .execute();
  const ids = (which: (player: number) => boolean) =>
    statements.filter((s) => which(Number(s.recipient_player_id))).map((s) => s.id);
  if (hold.length > 0)
    await holdStatements(
      db,
      { gameId: GAME, batchId: id, ids: ids((p) => hold.includes(p)), reason: HOLD },
      web(preparer),
    );
  await approveStatements(db, { gameId: GAME, batchId: id, ids: ids((p) => !hold.includes(p)) }, web(preparer));
  await approvePayoutBatch(db, { gameId: GAME, batchId: id }, web(approver));
  return id;
}

/** The September statement of a recipient, with its state. */
const statementOf = (player: number) =>
  db
    .selectFrom("payout_statement")
    .select(["id", "state"])
    .where("batch_id", "=", batchId)
    .where("recipient_player_id", "=", String(player))
    .executeTakeFirstOrThrow();

function paypalReport(rows: [number, string, string, string][]): string {
  const lines = rows.map(([who, txn, status, amount]) => `${refs.get(who)},${txn},${status},${amount},USD,0.25,`);
  return ["Customer ID,Transaction ID,Status,Amount,Currency,Fee,Reason", ...lines].join("\r\n");
}

async function download(kind: ExportKind): Promise<string> {
  const started = await startExport(db, { kind, batchId, bom: false, actor: null, via: "cli" });
  const chunks: Buffer[] = [];
  for await (const chunk of started.chunks) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** What a ledger learns of one recipient from the batch's journals. */
type Posted = { earned: Decimal; reversed: Decimal; paid: Decimal; returned: Decimal; payable: Decimal };
const zero = (): Posted => ({
  earned: new Decimal(0),
  reversed: new Decimal(0),
  paid: new Decimal(0),
  returned: new Decimal(0),
  payable: new Decimal(0),
});

/**
 * One journal, read the way the ledger reads it: lines of one number (the kind is the number's prefix, as the
 * README documents: A- accrual, R- reversal, P- payment, RP- returned payment), each with a signed amount (debit
 * positive). Adds the journal to its recipient's totals; refuses a journal that does not balance.
 */
function post(
  totals: Map<number, Posted>,
  number: string,
  recipient: number,
  lines: { account: string; amount: Decimal }[],
): void {
  const sum = lines.reduce((s, l) => s.plus(l.amount), new Decimal(0));
  expect(sum.isZero(), `journal ${number} balances`).toBe(true);
  const on = (code: string) =>
    lines.filter((l) => l.account === code).reduce((s, l) => s.plus(l.amount), new Decimal(0));
  const r = totals.get(recipient) ?? zero();
  r.payable = r.payable.minus(on(CODES.payable));
  const kind = /^([A-Z]+)-[0-9a-f]{18}$/.exec(number)?.[1];
  if (kind === "A") r.earned = r.earned.plus(on(CODES.expense));
  else if (kind === "R") r.reversed = r.reversed.minus(on(CODES.expense));
  else if (kind === "P") r.paid = r.paid.minus(on(CODES.clearing));
  else if (kind === "RP") r.returned = r.returned.plus(on(CODES.returns));
  else throw new Error(`journal ${number}: unknown kind`);
  totals.set(recipient, r);
}

const player = (label: string) => Number(/\(player (\d+)\)$/.exec(label)?.[1] ?? Number.NaN);

/** Xero: rows with the same Narration and Date are one journal; Amount positive = debit, negative = credit. */
function readXero(text: string): { totals: Map<number, Posted>; rows: Record<string, string>[] } {
  const rows = readCsv(text);
  const journals = new Map<string, Record<string, string>[]>();
  for (const row of rows) {
    const key = `${row["*Narration"]}|${row["*Date"]}`;
    journals.set(key, [...(journals.get(key) ?? []), row]);
  }
  const totals = new Map<number, Posted>();
  for (const [key, lines] of journals) {
    const number = /journal ([A-Z]+-[0-9a-f]+)$/.exec(key.split("|")[0] ?? "")?.[1] ?? key;
    const recipients = new Set(lines.map((l) => player(l.Description ?? "")));
    expect(recipients.size, key).toBe(1);
    post(
      totals,
      number,
      [...recipients][0] ?? 0,
      lines.map((l) => ({ account: l["*AccountCode"] ?? "", amount: new Decimal(l["*Amount"] ?? "") })),
    );
  }
  return { totals, rows };
}

/** QuickBooks Online: lines with the same Journal No are one entry; Debits or Credits on each line. */
function readQuickBooks(text: string): { totals: Map<number, Posted>; rows: Record<string, string>[] } {
  const rows = readCsv(text);
  const entries = new Map<string, Record<string, string>[]>();
  for (const row of rows) entries.set(row["Journal No"] ?? "", [...(entries.get(row["Journal No"] ?? "") ?? []), row]);
  const totals = new Map<number, Posted>();
  for (const [number, lines] of entries) {
    const named = lines.filter((l) => l.Name);
    expect(
      named.map((l) => l.Account),
      `${number}: the recipient is named on the payable line`,
    ).toEqual([CODES.payable]);
    const amounts = lines.map((l) => ({
      account: l.Account ?? "",
      amount: l.Debits ? new Decimal(l.Debits) : new Decimal(l.Credits ?? "").negated(),
    }));
    post(totals, number, player(named[0]?.Name ?? ""), amounts);
  }
  return { totals, rows };
}

beforeAll(async () => {
  smtp = await startSmtp(received);
  t = await createProfilesDatabase(GAME);
  db = t.db;
  await setIssuer(db);
  for (const id of [1, 2, 4, 5])
    await changePayoutDetails(db, { gameId: GAME, playerId: id, input: paypal(`p${id}@example.com`) }, finance);
  await month("2026-08", { 1: "50.00", 2: "40.00", 4: "30.00", 5: "6.00" });
  batchId = await month("2026-09", { 1: "100.00", 2: "80.00", 4: "60.00", 5: "7.25" }, [2]);
  await startWorkers();
});
afterAll(async () => {
  // A statement email still being rendered and sent finishes before its database is dropped (a busy machine takes
  // longer than an idle one).
  await stopWorkers({ timeoutMs: 60_000 * SLACK });
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  await t?.drop();
});

describe("a batch with a returned payment", () => {
  it("[finance] pays by file, emails each statement paid, then emails the returned one again, once", async () => {
    const made = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    expect(made.inPayment).toBe(3);
    for (const s of await db
      .selectFrom("payout_statement")
      .select(["recipient_player_id", "provider_reference"])
      .where("batch_id", "=", batchId)
      .execute())
      if (s.provider_reference) refs.set(Number(s.recipient_player_id), s.provider_reference);
    expect([...refs.keys()].sort()).toEqual([1, 4, 5]);

    const paid = paypalReport([
      [1, "TX-1", "SUCCESS", "-100.00"],
      [4, "TX-4", "SUCCESS", "-60.00"],
      [5, "TX-5", "SUCCESS", "-13.25"],
    ]);
    const first = await importResults(
      db,
      { gameId: GAME, batchId, format: "paypal", text: paid, dryRun: false },
      web(approver),
    );
    expect(first.applied).toMatchObject({ paid: 3, returned: 0 });
    // Two processes that recorded payments ask at once: one of them queues the three emails, each once.
    const both = await Promise.all(
      [approver, preparer].map((who) => queueChangedStatementEmails(db, { gameId: GAME, batchId }, web(who))),
    );
    expect(both.map((a) => [a.paid.queued, a.returned.queued]).sort()).toEqual([
      [0, 0],
      [3, 0],
    ]);
    await waitFor(async () => received.length >= 3, DELIVERIES);

    const back = paypalReport([[4, "TX-4R", "RETURNED", "-60.00"]]);
    const second = await importResults(
      db,
      { gameId: GAME, batchId, format: "paypal", text: back, dryRun: false },
      web(approver),
    );
    expect(second.applied.returned).toBe(1);
    const afterReturn = await queueChangedStatementEmails(db, { gameId: GAME, batchId }, web(approver));
    expect([afterReturn.paid.queued, afterReturn.returned.queued]).toEqual([0, 1]);
    await waitFor(async () => received.length >= 4, DELIVERIES);
    // Asked again, nothing more goes out: each change is emailed once.
    const again = await queueChangedStatementEmails(db, { gameId: GAME, batchId }, web(approver));
    expect([again.paid.queued, again.returned.queued]).toEqual([0, 0]);

    const toAn = received.filter((m) => !Array.isArray(m.to) && m.to?.text === "r4@example.test");
    expect(toAn).toHaveLength(2);
    const returnedMail = toAn[1];
    expect(returnedMail?.text).toContain("Hello Nguyễn Văn An,");
    expect(returnedMail?.text).toMatch(
      new RegExp(
        `Our payment of ${formatUsdText("60.00")} on \\d{4}-\\d{2}-\\d{2} by PayPal \\(reference TX-4\\) came back on`,
      ),
    );
    expect(returnedMail?.text).toContain("It is owed to you again and will be paid again.");
    const attached = await pdfText(returnedMail?.attachments[0]?.content ?? Buffer.alloc(0));
    expect(attached).toContain("Returned: owed to you again");
    const statement4 = await statementOf(4);
    expect(statement4.state).toBe("returned");
    // The same job and the same delivery log as every statement email: two sends, each queued then sent.
    const log = await listStatementDeliveries(db, { gameId: GAME, statementId: statement4.id });
    expect(log.map((d) => d.status).sort()).toEqual(["queued", "queued", "sent", "sent"]);
    expect(new Set(log.map((d) => d.sendId)).size).toBe(2);
  });

  it("[finance] refuses the ledger files while the returns account is unmapped, naming it", async () => {
    for (const account of ["expense", "payable", "clearing"] as const)
      await mapAccount(db, { gameId: GAME, account, code: CODES[account], taxRate: TAX }, { actor: null, via: "cli" });
    for (const kind of ["journal-xero", "journal-quickbooks"] as const) {
      const refusal = await download(kind).then(
        () => "",
        (error: unknown) => (isAppError(error) ? error.message : String(error)),
      );
      expect(refusal).toMatch(/map returns \(Returned payouts\)/);
    }
    await mapAccount(
      db,
      { gameId: GAME, account: "returns", code: CODES.returns, taxRate: TAX },
      { actor: null, via: "cli" },
    );
  });

  it("renders every statement and prints each figure of the payouts export and of both journals", async () => {
    await renderBatchStatements(db, { gameId: GAME, batchId }, web(approver), async (r) => {
      rendered.push(r);
    });
    for await (const page of payoutsExport.pages(db, { gameId: GAME, batchId, snapshotId: null } as never))
      for (const row of page as Record<string, string | null>[]) exported.set(Number(row.recipient_player_id), row);
    expect(rendered.map((r) => r.doc.recipient.playerId)).toEqual([1, 2, 4, 5]);
    expect([...exported.values()].map((r) => [r.recipient_player_id, r.state])).toEqual([
      ["1", "paid"],
      ["2", "held"],
      ["4", "returned"],
      ["5", "paid"],
    ]);

    const xero = readXero(await download("journal-xero"));
    const quickbooks = readQuickBooks(await download("journal-quickbooks"));
    // Both ledgers learn the same thing, and the returned payment posts to the mapped returns code.
    expect(quickbooks.totals).toEqual(xero.totals);
    const returnsLines = xero.rows.filter((r) => r["*AccountCode"] === CODES.returns);
    expect(returnsLines.map((r) => [r["*Amount"], player(r.Description ?? "")])).toEqual([["60.00", 4]]);
    expect(quickbooks.rows.filter((r) => r.Account === CODES.returns).map((r) => r.Debits)).toEqual(["60.00"]);
    expect(new Set(xero.rows.map((r) => r["*AccountCode"]))).toEqual(new Set(Object.values(CODES)));

    for (const r of rendered) {
      const id = r.doc.recipient.playerId;
      const row = exported.get(id);
      const posted = xero.totals.get(id) ?? zero();
      const text = await pdfText(r.pdf);
      expect(text).toContain(NAMES[id]);
      expect(row?.recipient_name).toBe(NAMES[id]);
      for (const column of FIGURE_COLUMNS)
        expect(text, `${id} ${column}`).toContain(formatUsdText(row?.[column] ?? "missing"));
      // The journal: what was earned and reversed is on the statement; carries post nothing.
      expect(posted.earned.toFixed(2), `${id} earned`).toBe(row?.gross_attributed_usd);
      expect(posted.reversed.toFixed(2), `${id} reversed`).toBe(row?.reversed_attributed_usd);
      expect(text).toContain(formatUsdText(posted.earned.toFixed(2)));
      const owedInBatch = posted.earned.minus(posted.reversed).minus(posted.paid).plus(posted.returned);
      expect(owedInBatch.toFixed(2), `${id} payable movement`).toBe(posted.payable.toFixed(2));
      if (row?.state === "paid") {
        expect(posted.paid.toFixed(2)).toBe(row.payable_usd);
        expect(posted.returned.toFixed(2)).toBe("0.00");
        expect(row.paid_amount_usd).toBe(row.payable_usd);
        expect(text).toContain(`Paid ${formatUsdText(posted.paid.toFixed(2))}`);
        expect(text).toContain(`Date ${row.paid_on}`);
        expect(text).toContain(`Reference ${row.payment_reference}`);
        // Paid in full: what the batch owed (net plus carried in) leaves payable; the carry in came from August.
        expect(posted.payable.negated().toFixed(2)).toBe(row.carried_in_usd);
      }
      if (row?.state === "held") {
        expect(posted.paid.toFixed(2)).toBe("0.00");
        expect(posted.payable.toFixed(2)).toBe(row.payable_usd);
        expect(text).toContain(`Held Reason ${HOLD}`);
      }
      if (row?.state === "returned") {
        expect(posted.paid.toFixed(2)).toBe(row.payable_usd);
        expect(posted.returned.toFixed(2)).toBe(row.payable_usd);
        expect(posted.payable.toFixed(2)).toBe(row.payable_usd);
        const returned = formatUsdText(posted.returned.toFixed(2));
        expect(text).toContain("Payment Returned: owed to you again");
        expect(text).toMatch(new RegExp(`Paid ${returned} on \\d{4}-\\d{2}-\\d{2} Method PayPal Reference TX-4`));
        expect(text).toMatch(new RegExp(`Returned ${returned} on \\d{4}-\\d{2}-\\d{2} Reason`));
      }
    }
    expect(exported.get(5)?.carried_in_usd).toBe("6.00");
  });

  it("a paid statement names the account the file paid, whatever the recipient's profile says since", async () => {
    const first = rendered.find((r) => r.doc.recipient.playerId === 1);
    expect(first?.doc.payment).toMatchObject({ state: "paid", account: expect.stringContaining("•") });
    const paidTo = first?.doc.payment.state === "paid" ? first.doc.payment.account : "missing";
    const change = await changePayoutDetails(
      db,
      { gameId: GAME, playerId: 1, input: paypal("new-account@example.org") },
      finance,
    );
    if (change.outcome === "pending" && change.changeId) {
      const second = { actor: approver, role: "finance" as const, via: "web" as const };
      await reviewPayoutChange(
        db,
        { gameId: GAME, playerId: 1, changeId: change.changeId, decision: "approve" },
        second,
      );
    }
    const profile = await db
      .selectFrom("payout_profile")
      .select("details_masked")
      .where("player_id", "=", "1")
      .executeTakeFirstOrThrow();
    expect(profile.details_masked).not.toBe(paidTo);
    const again = await renderStatement(db, { gameId: GAME, statementId: first?.doc.statementId ?? "" }, web(approver));
    expect(again.doc.payment).toMatchObject({ state: "paid", account: paidTo });
    expect(await pdfText(again.pdf)).toContain(`Account ${paidTo}`);
  });

  it("[finance] paying the returned statement again emails the recipient that it was paid, once", async () => {
    const { id } = await statementOf(4);
    const before = received.length;
    const payment = { paidOn: "2026-10-20", method: "paypal", reference: "TX-4B" } as const;
    const paid = await markStatementsPaid(db, { gameId: GAME, batchId, ids: [id], ...payment }, web(approver));
    expect(paid.statementIds).toEqual([id]);
    // Emailed twice before (paid, then returned): the payment since is news to the recipient.
    expect((await queuePaidStatementEmails(db, { gameId: GAME, batchId }, web(approver))).queued).toBe(1);
    await waitFor(async () => received.length > before, DELIVERIES);
    const mail = received.slice(before);
    expect(mail.map((m) => (Array.isArray(m.to) ? "" : m.to?.text))).toEqual(["r4@example.test"]);
    expect(mail[0]?.text).toContain("reference TX-4B");
    expect(mail[0]?.text).not.toContain("came back");
    expect((await queuePaidStatementEmails(db, { gameId: GAME, batchId }, web(approver))).queued).toBe(0);
  });
});
