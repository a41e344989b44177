import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { CHUNK_SIZE } from "@/db/queries/chunks";
import { lastAnalyzedAt } from "@/db/queries/statistics";
import { createPaymentFiles } from "@/lib/payments/files";
import { importResults } from "@/lib/payments/results";
import { importProfiles } from "@/lib/profiles/bulk";
import { ANALYZE_AFTER_ROWS } from "@/lib/statistics";
import { GAME, web } from "../payouts/fixtures";
import { approvedBatch, approver, finance, preparer, setUpPaymentsDatabase } from "../payments/support";

/**
 * An import of a thousand payout profiles or more, a payment file of as many payments, and the results that settle
 * them, refresh the statistics of the tables they wrote a row to per recipient once they commit: the window page's
 * read of its live files was planned for the items before the file (45 ms a view of a batch of 10,000 instead of 3 ms).
 */

// Past a chunk of the updates too: the payments go in two.
const RECIPIENTS = Math.max(ANALYZE_AFTER_ROWS, CHUNK_SIZE) + 1;
let db: Db;

setUpPaymentsDatabase((database) => {
  db = database;
});

describe("statistics after profiles, payment files and results", () => {
  it("[finance] profiles, a file and its results for a thousand recipients refresh their statistics", async () => {
    const ids = Array.from({ length: RECIPIENTS }, (_, i) => 1001 + i);
    const profiles = await lastAnalyzedAt(db, ["payout_profile", "payout_profile_change"]);
    expect(profiles).toEqual({ payout_profile: null, payout_profile_change: null });
    const csv = ["player_id,method,currency,paypal_email", ...ids.map((id) => `${id},paypal,USD,r${id}@example.com`)];
    const profilesImported = await importProfiles(db, { gameId: GAME, csv: csv.join("\n"), dryRun: false }, finance);
    expect(profilesImported).toMatchObject({ applied: true, refused: [] });
    const afterImport = await lastAnalyzedAt(db, ["payout_profile", "payout_profile_change"]);
    expect(afterImport.payout_profile).toBeInstanceOf(Date);
    expect(afterImport.payout_profile_change).toBeInstanceOf(Date);
    const batchId = await approvedBatch(db, "2026-05", Object.fromEntries(ids.map((id) => [id, "25.00"])));
    const before = await lastAnalyzedAt(db, ["payment_file_item", "payment_result"]);
    expect(before).toEqual({ payment_file_item: null, payment_result: null });

    const made = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    expect(made.inPayment).toBe(RECIPIENTS);
    const afterFile = await lastAnalyzedAt(db, ["payment_file_item", "payment_result"]);
    expect(afterFile.payment_file_item).toBeInstanceOf(Date);
    expect(afterFile.payment_result).toBeNull();

    const items = await db
      .selectFrom("payment_file_item")
      .select(["reference", "amount_currency"])
      .where("game_id", "=", GAME)
      .execute();
    const lines = items.map((i, n) => `${i.reference},paid,TX-${n},${i.amount_currency},USD`);
    const text = ["reference,outcome,provider_transaction_id,amount,currency", ...lines].join("\n");
    const imported = await importResults(
      db,
      { gameId: GAME, batchId, format: "generic", text, dryRun: false },
      web(approver),
    );
    expect(imported.applied.paid).toBe(RECIPIENTS);
    // Paid together, each with its own: the transaction id of its line, and the account its file item paid.
    const transactionOf = new Map(items.map((i, n) => [i.reference, `TX-${n}`]));
    const paid = await db
      .selectFrom("payout_statement as s")
      .innerJoin("payment_file_item as i", "i.statement_id", "s.id")
      .select(["i.reference", "i.account_masked", "s.payment_reference", "s.payment_method", "s.paid_to_masked"])
      .where("s.batch_id", "=", batchId)
      .execute();
    expect(paid).toHaveLength(RECIPIENTS);
    for (const p of paid) {
      expect(p.account_masked).toMatch(/^PayPal /);
      expect(p).toMatchObject({
        payment_reference: transactionOf.get(p.reference),
        payment_method: "paypal",
        paid_to_masked: p.account_masked,
      });
    }
    const afterResults = await lastAnalyzedAt(db, ["payment_file_item", "payment_result"]);
    expect(afterResults.payment_result).toBeInstanceOf(Date);
    expect(afterResults.payment_file_item?.getTime()).toBeGreaterThan(afterFile.payment_file_item?.getTime() ?? 0);
  });
});
