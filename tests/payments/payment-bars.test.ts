import { describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { recordDisputeOpened } from "@/db/queries/disputes";
import { listOutdatedLiveFiles } from "@/db/queries/outdated-files";
import { downloadPaymentFile } from "@/lib/payments/file-access";
import { createPaymentFiles, sepaPayer, sepaPayerNote } from "@/lib/payments/files";
import { importResults } from "@/lib/payments/results";
import { approvePayoutBatch, approveStatements, preparePayoutBatch } from "@/lib/payouts/batches";
import { approvedBarredFromPayment } from "@/lib/payouts/batch-flag-reads";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { listOpenBatchFlags } from "@/lib/payouts/open-flags";
import { profileFlagsOf } from "@/lib/profiles/flags";
import { monthWindow } from "@/lib/time";
import { changePayoutDetails, reviewPayoutChange, setTaxForm } from "@/lib/profiles/profiles";
import { saveProfileSettings } from "@/lib/profiles/settings";
import { GAME, insertSnapshot, web } from "../payouts/fixtures";
import {
  approvedBatch,
  approver,
  finance,
  paypal,
  preparer,
  refusedByRule,
  statesOf,
  setUpPaymentsDatabase,
} from "./support";

/**
 * What happens between approval and the payment file: approval checked each recipient's details and tax form as they
 * were, so a change after it keeps the recipient out of any file until someone resolves or overrides the new flag.
 */

let db: Db;

setUpPaymentsDatabase((database) => {
  db = database;
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

/** An expiry still ahead whenever this runs: the last day of the third year from now. */
const inThreeYears = `${new Date().getUTCFullYear() + 3}-12-31`;

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
    // The open flags (the command line's `payouts flags`) name it with the cause an override takes.
    const open = () => listOpenBatchFlags(db, { gameId: GAME, batchId });
    expect(await open()).toEqual([
      expect.objectContaining({
        flag: "payout_details_changed",
        recipientPlayerId: 1,
        cause: `payout_details:${change.changeId}`,
      }),
    ]);

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
    expect(await open()).toEqual([]);
    const second = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    expect(second.refused).toEqual([]);
    expect(paypalRecipients(await contentOf(second.files[0]?.id ?? ""))).toEqual(["changed1@example.com"]);
    expect(await statesOf(db, batchId)).toEqual({ 1: "in_payment", 4: "in_payment" });
  });

  it("[finance] first details entered after approval are not paid until someone confirms them", async () => {
    // Recipient 6 had no details when the batch was approved (the flag overridden); one person enters them now.
    const batchId = await approvedBatch(db, "2026-07", { 5: "20.00", 6: "30.00" }, [[6, "no_payout_method"]]);
    const entered = await changePayoutDetails(
      db,
      { gameId: GAME, playerId: 6, input: paypal("p6@example.com") },
      finance,
    );
    expect(entered.outcome).toBe("applied");
    const made = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    expect(made.refused).toEqual([
      expect.objectContaining({
        recipientPlayerId: 6,
        reason: expect.stringMatching(/payout details changed after approval; confirm the change/),
      }),
    ]);
    expect(await statesOf(db, batchId)).toEqual({ 5: "in_payment", 6: "approved" });
    // The file's audit line: what it pays in all and by file, and who it left out and why, never their details.
    const created = await db
      .selectFrom("audit_log")
      .select("detail")
      .where("target", "=", batchId)
      .where("action", "=", "payouts.payment_file.create")
      .executeTakeFirstOrThrow();
    expect(created.detail).toMatchObject({
      inPayment: 1,
      totalUsd: "20.00",
      files: [{ rows: 1, currency: "USD", totalUsd: "20.00", totalAmount: "20.00" }],
      refused: 1,
      refusedListed: [{ recipientPlayerId: 6, reason: expect.stringMatching(/payout details changed after approval/) }],
    });
    expect(JSON.stringify(created.detail)).not.toContain("p6@example.com");

    // The person who entered them cannot confirm them: they could have typed their own account.
    const confirm = (by: typeof preparer) =>
      overrideFlag(
        db,
        {
          gameId: GAME,
          batchId,
          flag: "payout_details_changed",
          recipientPlayerId: 6,
          reason: "details confirmed with the creator on a call",
        },
        web(by),
      );
    await expect(confirm(preparer)).rejects.toThrow(/Two-person rule: you entered these payout details/);
    expect(await refusedByRule(db, batchId)).toEqual([
      { action: "payouts.flag.override", actor_email: preparer.email },
    ]);
    await confirm(approver);
    const paid = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    expect(paid.inPayment).toBe(1);
    expect(await statesOf(db, batchId)).toEqual({ 5: "in_payment", 6: "in_payment" });
  });

  it("[finance] a payment sent before a change of details, recorded after it, does not confirm it", async () => {
    const august = await approvedBatch(db, "2026-08", { 4: "30.00" });
    const made = await createPaymentFiles(db, { gameId: GAME, batchId: august, method: "paypal" }, web(preparer));
    expect(made.inPayment).toBe(1);
    const outdated = () => listOutdatedLiveFiles(db, { gameId: GAME, batchId: august, named: 3 });
    expect(await outdated()).toEqual([]);
    // Details applied after the file was written count even when they mask alike (another PayPal address of the same
    // first letter and domain): only when they were applied tells them apart.
    const profile = db.updateTable("payout_profile").where("game_id", "=", GAME).where("player_id", "=", "4");
    const applied = await db
      .selectFrom("payout_profile")
      .select("details_applied_at")
      .where("game_id", "=", GAME)
      .where("player_id", "=", "4")
      .executeTakeFirstOrThrow();
    await profile.set({ details_applied_at: new Date() }).execute();
    expect((await outdated()).map((f) => f.recipients)).toEqual([[{ recipientPlayerId: 4, name: expect.any(String) }]]);
    await profile.set({ details_applied_at: applied.details_applied_at }).execute();
    expect(await outdated()).toEqual([]);
    // The details change (and are approved) after the file was made, before its result comes back.
    const change = await changePayoutDetails(
      db,
      { gameId: GAME, playerId: 4, input: paypal("moved4@example.com") },
      finance,
    );
    await reviewPayoutChange(
      db,
      { gameId: GAME, playerId: 4, changeId: change.changeId ?? "", decision: "approve" },
      { actor: approver, role: "finance", via: "web" },
    );
    // The live file still pays the old address: its page says so, naming the recipient.
    expect(await outdated()).toEqual([
      { fileId: made.files[0]?.id, outdated: 1, recipients: [{ recipientPlayerId: 4, name: expect.any(String) }] },
    ]);
    const statement = await db
      .selectFrom("payout_statement")
      .select("provider_reference")
      .where("batch_id", "=", august)
      .executeTakeFirstOrThrow();
    const results = [
      "Customer ID,Transaction ID,Status,Amount,Currency,Fee,Reason",
      `${statement.provider_reference},TX-AUG-4,SUCCESS,-30.00,USD,0.25,`,
    ].join("\r\n");
    const imported = await importResults(
      db,
      { gameId: GAME, batchId: august, format: "paypal", text: results, dryRun: false },
      web(approver),
    );
    expect(imported.applied).toMatchObject({ paid: 1 });
    // Paid from it: nothing left in the file to warn of.
    expect(await outdated()).toEqual([]);
    // That payment went to the old address: the new one is still to be confirmed in the next batch.
    await insertSnapshot(db, { window: "2026-10", recipients: [{ id: 4, gross: "20.00" }] });
    const { batchId } = await preparePayoutBatch(db, { gameId: GAME, window: monthWindow("2026-10") }, web(preparer));
    const flags = await profileFlagsOf(db, { gameId: GAME, batchId });
    expect(flags.map((f) => [f.recipientPlayerId, f.flag])).toEqual([[4, "payout_details_changed"]]);
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
        {
          gameId: GAME,
          playerId: 3,
          input: { taxForm: "W-8BEN", taxFormReceivedOn: "2026-06-02", taxFormExpiresOn: inThreeYears },
        },
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

describe("a chargeback after approval", () => {
  it("[finance] keeps the recipient out of a file while the dispute is open, until overridden", async () => {
    const snapshot = await insertSnapshot(db, {
      window: "2026-09",
      recipients: [
        { id: 3, gross: "35.00" },
        { id: 5, gross: "30.00", mintOrderId: "ord_disputed_5" },
      ],
    });
    const { batchId } = await preparePayoutBatch(db, { gameId: GAME, window: monthWindow("2026-09") }, web(preparer));
    await approveStatements(db, { gameId: GAME, batchId, all: "draft_unflagged" }, web(preparer));
    await approvePayoutBatch(db, { gameId: GAME, batchId }, web(approver));
    // Recipient 5's renewal was charged on a card whose holder disputes it after the batch was approved.
    await recordDisputeOpened(db, {
      gameId: GAME,
      disputeId: "dp_5",
      orderId: "ord_disputed_5",
      transactionId: null,
      reason: "fraudulent",
      usdAmount: "10.00",
      openedAt: new Date(),
      eventId: "evt_dispute_5",
    });
    // Nor is recording the approved statements paid by hand offered while it stands.
    const target = { gameId: GAME, batchId, snapshotId: snapshot.id };
    expect(await approvedBarredFromPayment(db, target)).toEqual([5]);
    const made = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    expect(made.refused).toEqual([
      expect.objectContaining({
        recipientPlayerId: 5,
        reason: expect.stringMatching(/a renewal it pays for is disputed \(a chargeback opened or lost since/),
      }),
    ]);
    expect(paypalRecipients(await contentOf(made.files[0]?.id ?? ""))).toEqual(["p3@example.com"]);
    expect(await statesOf(db, batchId)).toEqual({ 3: "in_payment", 5: "approved" });

    await overrideFlag(
      db,
      {
        gameId: GAME,
        batchId,
        flag: "disputed_renewal",
        recipientPlayerId: 5,
        reason: "the chargeback is for a pass the creator did not sell; paying in full",
      },
      web(approver),
    );
    expect(await approvedBarredFromPayment(db, target)).toEqual([]);
    const again = await createPaymentFiles(db, { gameId: GAME, batchId, method: "paypal" }, web(preparer));
    expect(again.refused).toEqual([]);
    expect(paypalRecipients(await contentOf(again.files[0]?.id ?? ""))).toEqual(["p5@example.com"]);
  });
});

describe("the account a SEPA file pays from", () => {
  it("[finance] is never the demo account for a production game: without one set, the file is refused", async () => {
    const batchId = await approvedBatch(db, "2026-11", { 2: "45.00" });
    const sepa = { gameId: GAME, batchId, method: "sepa" as const, eurRate: "0.92", rateSource: "ECB" };
    await db.updateTable("game").set({ environment: "production" }).where("id", "=", GAME).execute();
    try {
      // The form does not offer SEPA, and says why.
      await expect(sepaPayerNote(db, GAME)).resolves.toEqual({
        offered: false,
        note: expect.stringMatching(/^A SEPA file needs the account it pays from, and none is set: whoever runs/),
      });
      await expect(createPaymentFiles(db, sepa, web(preparer))).rejects.toThrow(
        /A SEPA file needs the account it pays from, and none is set: .*\(PAYOUT_DESK_PAYER_NAME,/,
      );
      expect(await statesOf(db, batchId)).toEqual({ 2: "approved" });
    } finally {
      await db.updateTable("game").set({ environment: "sandbox" }).where("id", "=", GAME).execute();
    }
    // Set for production, the studio's account is never a sandbox game's: its files pay from the demo account.
    const studio = {
      name: "Northwind Games GmbH",
      iban: "DE02120300000000202051",
      bic: "BYLADEM1001",
      address: { town: "München", country: "DE" },
    };
    await expect(sepaPayer(db, GAME, studio)).resolves.toMatchObject({ ok: true, demo: true });
    await db.updateTable("game").set({ environment: "production" }).where("id", "=", GAME).execute();
    try {
      await expect(sepaPayer(db, GAME, studio)).resolves.toEqual({ ok: true, account: studio, demo: false });
      // An account outside the EEA pays only with the payer's address set: every euro transfer from it names it.
      const london = { ...studio, iban: "GB29NWBK60161331926819", bic: "NWBKGB2L", address: null };
      await expect(sepaPayer(db, GAME, london)).resolves.toEqual({
        ok: false,
        reason: expect.stringMatching(/^The SEPA payer account is in GB, outside the EEA: .*PAYOUT_DESK_PAYER_TOWN/),
      });
      const addressed = { ...london, address: { town: "London", country: "GB" } };
      await expect(sepaPayer(db, GAME, addressed)).resolves.toEqual({ ok: true, account: addressed, demo: false });
    } finally {
      await db.updateTable("game").set({ environment: "sandbox" }).where("id", "=", GAME).execute();
    }
    // A sandbox game's file names the demo account, as the form says.
    await expect(sepaPayerNote(db, GAME)).resolves.toEqual({
      offered: true,
      note:
        "SEPA files pay from Payout Desk Demo Ltd, IBAN ••••3000, Frankfurt am Main, DE (the demo account of a " +
        "sandbox game).",
    });
    const made = await createPaymentFiles(db, sepa, web(preparer));
    const content = await contentOf(made.files[0]?.id ?? "");
    expect(content).toContain("<Nm>Payout Desk Demo Ltd</Nm>");
    expect(content).toMatch(/<PstlAdr>\s*<TwnNm>Frankfurt am Main<\/TwnNm>\s*<Ctry>DE<\/Ctry>\s*<\/PstlAdr>/);
  });
});
