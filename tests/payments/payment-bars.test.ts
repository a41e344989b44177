import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { downloadPaymentFile } from "@/lib/payments/file-access";
import { createPaymentFiles } from "@/lib/payments/files";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { changePayoutDetails, reviewPayoutChange, setTaxForm } from "@/lib/profiles/profiles";
import { saveProfileSettings } from "@/lib/profiles/settings";
import type { TestDatabase } from "../support/db";
import { createProfilesDatabase } from "../profiles/support";
import { GAME, web } from "../payouts/fixtures";
import { approvedBatch, approver, finance, paypal, preparer, seedProfiles, statesOf } from "./support";

/**
 * What happens between approval and the payment file: approval checked each recipient's details and tax form as they
 * were, so a change after it keeps the recipient out of any file until someone resolves or overrides the new flag.
 */

let t: TestDatabase;
let db: Db;

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  db = t.db;
  await seedProfiles(db);
});

afterAll(async () => {
  await t?.drop();
});

/** The recipients of a PayPal payout file (no header; recipient, amount, currency, reference, note, wallet). */
function paypalRecipients(content: string): string[] {
  const rows = content.split("\r\n").filter((l) => l.length > 0);
  return rows.map((row) => {
    const cells = row.split(",");
    expect(cells).toHaveLength(6);
    return cells[0] ?? "";
  });
}

async function contentOf(fileId: string): Promise<string> {
  return (await downloadPaymentFile(db, { gameId: GAME, fileId }, web(approver))).content;
}

describe("a flag raised after approval", () => {
  it("[finance] details changed after approval are not paid until the change is confirmed", async () => {
    const batchId = await approvedBatch(db, "2026-05", { 1: "40.00", 4: "30.00" });
    const change = await changePayoutDetails(
      db,
      { gameId: GAME, playerId: 1, input: paypal("changed1@example.com") },
      finance,
    );
    if (change.outcome !== "pending" || !change.changeId) throw new Error("a change of details waits for review");
    await reviewPayoutChange(
      db,
      { gameId: GAME, playerId: 1, changeId: change.changeId, decision: "approve" },
      { actor: approver, role: "finance", via: "web" },
    );

    const first = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    expect(first.refused).toEqual([
      expect.objectContaining({
        recipientPlayerId: 1,
        reason: expect.stringMatching(/payout details changed after approval; confirm the change/),
      }),
    ]);
    expect(await statesOf(db, batchId)).toEqual({ 1: "approved", 4: "in_payment" });
    expect(paypalRecipients(await contentOf(first.files[0]?.id ?? ""))).toEqual(["p4@example.com"]);

    await overrideFlag(
      db,
      {
        gameId: GAME,
        batchId,
        flag: "payout_details_changed",
        recipientPlayerId: 1,
        reason: "new address confirmed by the creator on a call",
      },
      web(approver),
    );
    const second = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    expect(second.refused).toEqual([]);
    expect(paypalRecipients(await contentOf(second.files[0]?.id ?? ""))).toEqual(["changed1@example.com"]);
    expect(await statesOf(db, batchId)).toEqual({ 1: "in_payment", 4: "in_payment" });
  });

  it("[finance] a tax form required or expired after approval keeps the recipient out of the file", async () => {
    const batchId = await approvedBatch(db, "2026-06", { 3: "25.00", 5: "20.00" });
    await setTaxForm(
      db,
      { gameId: GAME, playerId: 5, input: { taxForm: "W-9", taxFormReceivedOn: "2026-01-05" } },
      finance,
    );
    await saveProfileSettings(db, { requireTaxForm: true }, { actor: approver, via: "web" });
    try {
      const made = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
      expect(made.refused).toEqual([
        expect.objectContaining({ recipientPlayerId: 3, reason: expect.stringMatching(/tax form is missing/) }),
      ]);
      expect(await statesOf(db, batchId)).toEqual({ 3: "approved", 5: "in_payment" });
      await setTaxForm(
        db,
        { gameId: GAME, playerId: 3, input: { taxForm: "W-8BEN", taxFormReceivedOn: "2026-06-02" } },
        finance,
      );
      const next = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
      expect(next.refused).toEqual([]);
      expect(await statesOf(db, batchId)).toEqual({ 3: "in_payment", 5: "in_payment" });
    } finally {
      await saveProfileSettings(db, { requireTaxForm: false }, { actor: approver, via: "web" });
    }
  });
});
