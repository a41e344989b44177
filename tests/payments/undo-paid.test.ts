import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { listPayeeTotals } from "@/db/queries/accounting";
import { batchHasReturnedPayment } from "@/db/queries/payment-flow";
import { listPayoutTable } from "@/db/queries/payouts";
import { postingOf } from "@/lib/exports/postings";
import { createPaymentFiles } from "@/lib/payments/files";
import { importResults } from "@/lib/payments/results";
import { returnPayment } from "@/lib/payments/returns";
import { markStatementsPaid } from "@/lib/payouts/batch-approval";
import { listLedgerEntries } from "@/lib/payouts/ledger";
import { profileFlagsOf } from "@/lib/profiles/flags";
import { GAME, web } from "../payouts/fixtures";
import { approvedBatch, approver, preparer, setUpPaymentsDatabase } from "./support";

/**
 * A payment recorded paid by mistake and undone by hand never left: the statement is owed again as on a return, but
 * nothing came back, so the recipient is not flagged "Payment returned", the ledger files post the undoing back to
 * clearing (not to returns), and the year's payee totals hold no payment. One that came back, recorded by hand, does
 * all of that as before.
 */

let db: Db;
let batchId: string;
const today = new Date().toISOString().slice(0, 10);

setUpPaymentsDatabase(
  (database) => {
    db = database;
  },
  async () => {
    batchId = await approvedBatch(db, "2026-09", { 1: "100.00", 3: "70.00" });
  },
);

async function statementOf(recipient: number) {
  return db
    .selectFrom("payout_statement")
    .select(["id", "state"])
    .where("batch_id", "=", batchId)
    .where("recipient_player_id", "=", String(recipient))
    .executeTakeFirstOrThrow();
}

async function paidByHand(recipient: number, reference: string): Promise<string> {
  const { id } = await statementOf(recipient);
  const paid = { gameId: GAME, batchId, ids: [id], paidOn: today, method: "paypal" as const, reference };
  await markStatementsPaid(db, paid, web(preparer));
  return id;
}

/** What the window's table says of the recipient's statement: its state, and whether its payment was undone. */
async function tableRowOf(recipient: number) {
  const page = { sort: "recipient", dir: "asc", page: 1, pageSize: 50 } as const;
  const { rows } = await listPayoutTable(db, { gameId: GAME, snapshotId: "", batchId, state: "returned", ...page });
  const row = rows.find((r) => r.recipientPlayerId === recipient);
  return row && { state: row.state, undone: row.undone };
}

async function returnedFlags(recipient: number): Promise<string[]> {
  const flags = await profileFlagsOf(db, { gameId: GAME, batchId, recipientPlayerId: recipient });
  return flags.filter((f) => f.flag === "payment_returned").map((f) => f.cause);
}

/** The recipient's ledger entries as their postings: kind, then each line as "side account amount". */
async function postingsOf(recipient: number): Promise<[string, string[]][]> {
  const entries = await listLedgerEntries(db, { gameId: GAME, batchId, recipientPlayerId: recipient });
  return entries.flatMap((entry) => {
    const posting = postingOf(entry);
    if (!posting) return [];
    const lines = posting.lines.map((l) => `${l.side} ${l.account} ${l.amount.toFixed(2)}`);
    return [[posting.kind, lines] as [string, string[]]];
  });
}

describe("a payment recorded paid by mistake, undone", () => {
  it("[finance] is owed again, unflagged, posted back to clearing and in no year's totals", async () => {
    const id = await paidByHand(1, "MISTAKE-1");
    const reason = "never sent: marked paid by mistake";
    await returnPayment(db, { gameId: GAME, statementId: id, reason, undo: true }, web(approver));

    expect((await statementOf(1)).state).toBe("returned");
    const rows = await db
      .selectFrom("payment_return")
      .select(["kind", "undone"])
      .where("statement_id", "=", id)
      .execute();
    expect(rows).toEqual([{ kind: "returned", undone: true }]);
    expect(await tableRowOf(1)).toEqual({ state: "returned", undone: true });
    expect(await returnedFlags(1)).toEqual([]);
    expect(await postingsOf(1)).toEqual([
      ["accrual", ["debit expense 100.00", "credit payable 100.00"]],
      ["payment", ["debit payable 100.00", "credit clearing 100.00"]],
      ["payment_undone", ["debit clearing 100.00", "credit payable 100.00"]],
    ]);
    expect(await batchHasReturnedPayment(db, { gameId: GAME, batchId })).toBe(false);
    const year = Number(today.slice(0, 4));
    const totals = await listPayeeTotals(db, { gameId: GAME, year });
    expect(totals.find((t) => t.recipientPlayerId === "1")).toBeUndefined();
  });
});

describe("a payment that came back, recorded by hand", () => {
  it("[finance] raises Payment returned and posts to returns, as before", async () => {
    const id = await paidByHand(3, "PP-3");
    await returnPayment(db, { gameId: GAME, statementId: id, reason: "PayPal sent it back" }, web(approver));

    expect((await statementOf(3)).state).toBe("returned");
    expect(await returnedFlags(3)).toEqual([expect.stringMatching(/^payment_return:/)]);
    expect(await tableRowOf(3)).toEqual({ state: "returned", undone: false });
    expect((await postingsOf(3)).at(-1)).toEqual(["payment_returned", ["debit returns 70.00", "credit payable 70.00"]]);
    expect(await batchHasReturnedPayment(db, { gameId: GAME, batchId })).toBe(true);
    const totals = await listPayeeTotals(db, { gameId: GAME, year: Number(today.slice(0, 4)) });
    expect(totals.find((t) => t.recipientPlayerId === "3")).toMatchObject({
      paidUsd: "70.00",
      returnedUsd: "70.00",
      netUsd: "0.00",
      payments: 0,
    });
  });
});

describe("a payment undone, paid again by a file whose report then says it came back", () => {
  it("[finance] takes the return: the undone payment never reached a provider to be reported again", async () => {
    const october = await approvedBatch(db, "2026-10", { 4: "25.00" });
    const statement = () =>
      db
        .selectFrom("payout_statement")
        .select(["id", "state"])
        .where("batch_id", "=", october)
        .where("recipient_player_id", "=", "4")
        .executeTakeFirstOrThrow();
    /** A PayPal file of the batch and its report of recipient 4's payment: transaction id, status, amount. */
    const filed = async () => {
      const made = await createPaymentFiles(db, { gameId: GAME, batchId: october, method: "paypal" }, web(preparer));
      const fileId = made.files[0]?.id ?? "";
      const item = await db
        .selectFrom("payment_file_item")
        .select("reference")
        .where("file_id", "=", fileId)
        .executeTakeFirstOrThrow();
      const header = "Customer ID,Transaction ID,Status,Amount,Currency,Fee,Reason";
      return (txn: string, status: string, amount: string) => {
        const text = `${header}\r\n${item.reference},${txn},${status},${amount},USD,0.25,`;
        const results = { gameId: GAME, batchId: october, format: "paypal" as const, text, dryRun: false };
        return importResults(db, results, web(approver));
      };
    };
    expect((await (await filed())("TX-4A", "SUCCESS", "-25.00")).applied.paid).toBe(1);
    const reason = "the file was never uploaded: marked paid by mistake";
    await returnPayment(db, { gameId: GAME, statementId: (await statement()).id, reason, undo: true }, web(preparer));
    const second = await filed();
    expect((await second("TX-4B", "SUCCESS", "-25.00")).applied.paid).toBe(1);
    // The provider's later report: the new payment came back, named by the file's reference alone.
    const back = await second("", "RETURNED", "25.00");
    expect(back.plan.lines.map((l) => l.verdict)).toEqual(["return"]);
    expect(back.applied).toMatchObject({ returned: 1 });
    expect((await statement()).state).toBe("returned");
  });
});
