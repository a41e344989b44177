import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { approvePayoutBatch, approveStatements, markStatementsPaid, preparePayoutBatch } from "@/lib/payouts/batches";
import { approvedBarredFromPayment, approvedWithOpenFlags, hasUnflaggedDraft } from "@/lib/payouts/batch-flag-reads";
import { hasStatementNoFlagCanStandOn, listFlagCandidates } from "@/db/queries/flag-candidates";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { openFlagsOf, readBatchFlags } from "@/lib/payouts/flags";
import { listPayoutStatements } from "@/lib/payouts/ledger";
import { sql } from "kysely";
import { savePayoutSettings } from "@/lib/payouts/settings";
import { changePayoutDetails, type ProfileActing, reviewPayoutChange, setTaxForm } from "@/lib/profiles/profiles";
import { payoutDetailsInputSchema } from "@/lib/profiles/schemas";
import { profileFlagsOf } from "@/lib/profiles/flags";
import { saveProfileSettings } from "@/lib/profiles/settings";
import { monthWindow } from "@/lib/time";
import { lockPayoutsOfGame } from "@/db/queries/payout-batches";
import { PAYOUT_LOCK_WAIT, PAYOUTS_BUSY } from "@/lib/payouts/game-lock";
import type { TestDatabase } from "../support/db";
import { createProfilesDatabase } from "./support";
import { actor, GAME, insertSnapshot, web } from "../payouts/fixtures";

/**
 * A recipient's payout profile raises flags on their payable statement that block approval until resolved or
 * overridden: no payout method, details changed since the last payment (until that change is acknowledged by an
 * override), no valid tax form when an admin requires one.
 */

let t: TestDatabase;
let jan: { batchId: string; snapshotId: string };
let db: Db;
const preparer = actor("preparer");
const approver = actor("approver");
const fin1: ProfileActing = { actor: { id: "p-fin-1", email: "pfin1@payout-desk.test" }, role: "finance", via: "web" };
const fin2: ProfileActing = { actor: { id: "p-fin-2", email: "pfin2@payout-desk.test" }, role: "finance", via: "web" };

const paypal = (email: string) =>
  payoutDetailsInputSchema.parse({ method: "paypal", currency: "USD", paypalEmail: email });

async function flagsOf(batch: { batchId: string; snapshotId: string }, playerId: number): Promise<string[]> {
  const flags = await readBatchFlags(db, { gameId: GAME, batchId: batch.batchId, snapshotId: batch.snapshotId });
  return (flags.profiles ?? []).filter((f) => f.recipientPlayerId === playerId).map((f) => f.flag);
}

async function prepare(month: string, ids: number[]): Promise<{ batchId: string; snapshotId: string }> {
  const snapshot = await insertSnapshot(db, { window: month, recipients: ids.map((id) => ({ id, gross: "40.00" })) });
  const { batchId } = await preparePayoutBatch(db, { gameId: GAME, window: monthWindow(month) }, web(preparer));
  return { batchId, snapshotId: snapshot.id };
}

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  db = t.db;
  await savePayoutSettings(db, { twoPersonRule: true, minPayoutUsd: "10.00" }, { actor: actor("admin"), via: "web" });
});
afterAll(async () => t?.drop());

describe("profile flags", () => {
  it("no method flag while the game has no payout details; once it has some, one without is flagged", async () => {
    jan = await prepare("2026-01", [8001, 8002]);
    expect(await flagsOf(jan, 8002)).toEqual([]);
    await changePayoutDetails(db, { gameId: GAME, playerId: 8001, input: paypal("first@example.com") }, fin1);
    expect(await flagsOf(jan, 8001)).toEqual([]);
    expect(await flagsOf(jan, 8002)).toEqual(["no_payout_method"]);
  });

  it("read for some recipients (the rows a page shows), only theirs are read, with the same flags", async () => {
    const some = await profileFlagsOf(db, { gameId: GAME, batchId: jan.batchId, recipientPlayerIds: [8002] });
    expect(some.map((f) => [f.recipientPlayerId, f.flag])).toEqual([[8002, "no_payout_method"]]);
    const none = await profileFlagsOf(db, { gameId: GAME, batchId: jan.batchId, recipientPlayerIds: [8001] });
    expect(none).toEqual([]);
    expect(await profileFlagsOf(db, { gameId: GAME, batchId: jan.batchId, recipientPlayerIds: [] })).toEqual([]);
  });

  it("a batch with a recipient lacking a method cannot be approved until the flag is overridden", async () => {
    // The page offers approving the unflagged drafts while one is left, the profiles' flags read page by page.
    const target = { gameId: GAME, batchId: jan.batchId, snapshotId: jan.snapshotId };
    expect(await hasUnflaggedDraft(db, target)).toBe(true);
    const first = await approveStatements(
      db,
      { gameId: GAME, batchId: jan.batchId, all: "draft_unflagged" },
      web(preparer),
    );
    expect(first.changed).toBe(1);
    expect(await hasUnflaggedDraft(db, target)).toBe(false);
    await expect(approvePayoutBatch(db, { gameId: GAME, batchId: jan.batchId }, web(approver))).rejects.toThrow(
      /draft/,
    );
    const refused = await approveStatements(
      db,
      { gameId: GAME, batchId: jan.batchId, ids: await draftIds(jan.batchId) },
      web(preparer),
    );
    expect(refused.skipped[0]?.reason).toMatch(/No payout method/);

    await overrideFlag(
      db,
      {
        gameId: GAME,
        batchId: jan.batchId,
        flag: "no_payout_method",
        recipientPlayerId: 8002,
        reason: "Paid by cheque this month, details on file",
      },
      web(preparer),
    );
    expect(
      (await approveStatements(db, { gameId: GAME, batchId: jan.batchId, all: "draft_unflagged" }, web(preparer)))
        .changed,
    ).toBe(1);
    await approvePayoutBatch(db, { gameId: GAME, batchId: jan.batchId }, web(approver));
    await markStatementsPaid(
      db,
      { gameId: GAME, batchId: jan.batchId, paidOn: "2026-02-03", method: "paypal", reference: "PP-2026-01" },
      web(approver),
    );
  });

  it("details changed since the last payment flag the next statement until the change is acknowledged", async () => {
    const change = await changePayoutDetails(
      db,
      { gameId: GAME, playerId: 8001, input: paypal("new@example.com") },
      fin1,
    );
    // A pending change is not in force: nothing is flagged yet.
    const feb = await prepare("2026-02", [8001]);
    expect(await flagsOf(feb, 8001)).toEqual([]);
    await reviewPayoutChange(
      db,
      { gameId: GAME, playerId: 8001, changeId: change.changeId ?? "", decision: "approve" },
      fin2,
    );
    expect(await flagsOf(feb, 8001)).toEqual(["payout_details_changed"]);
    await expect(
      approveStatements(db, { gameId: GAME, batchId: feb.batchId, ids: await draftIds(feb.batchId) }, web(preparer)),
    ).resolves.toMatchObject({ changed: 0, skipped: [{ reason: expect.stringMatching(/Payout details changed/) }] });
    await overrideFlag(
      db,
      {
        gameId: GAME,
        batchId: feb.batchId,
        flag: "payout_details_changed",
        recipientPlayerId: 8001,
        reason: "Confirmed by phone with the recipient on 2026-03-02",
      },
      web(preparer),
    );
    expect(
      (await approveStatements(db, { gameId: GAME, batchId: feb.batchId, all: "draft_unflagged" }, web(preparer)))
        .changed,
    ).toBe(1);
    await approvePayoutBatch(db, { gameId: GAME, batchId: feb.batchId }, web(approver));
    await markStatementsPaid(
      db,
      { gameId: GAME, batchId: feb.batchId, paidOn: "2026-03-03", method: "paypal", reference: "PP-2026-02" },
      web(approver),
    );
    // Paid after the change: the next statement is not flagged.
    const mar = await prepare("2026-03", [8001]);
    expect(await flagsOf(mar, 8001)).toEqual([]);
  });

  it("a required tax form blocks a recipient without one, or with one expired", async () => {
    const apr = await prepare("2026-04", [8001]);
    expect(await flagsOf(apr, 8001)).toEqual([]);
    await saveProfileSettings(db, { requireTaxForm: true }, { actor: approver, via: "web" });
    expect(await flagsOf(apr, 8001)).toEqual(["tax_form_missing"]);
    await setTaxForm(
      db,
      {
        gameId: GAME,
        playerId: 8001,
        input: { taxForm: "W-8BEN", taxFormReceivedOn: "2020-01-01", taxFormExpiresOn: "2023-12-31" },
      },
      fin1,
    );
    const flags = await readBatchFlags(db, { gameId: GAME, batchId: apr.batchId, snapshotId: apr.snapshotId });
    expect(flags.profiles?.map((f) => [f.flag, f.detail])).toEqual([
      ["tax_form_missing", "W-8BEN expired on 2023-12-31"],
    ]);
    await setTaxForm(
      db,
      {
        gameId: GAME,
        playerId: 8001,
        input: { taxForm: "W-9", taxFormReceivedOn: "2026-04-02", taxFormExpiresOn: undefined },
      },
      fin1,
    );
    expect(await flagsOf(apr, 8001)).toEqual([]);
    await saveProfileSettings(db, { requireTaxForm: false }, { actor: approver, via: "web" });
  });

  it("a payment by hand of a statement approved before the change does not clear it", async () => {
    // May is approved with the details in force; then new details are entered and approved by a second person.
    const may = await prepare("2026-05", [8001]);
    await approveStatements(db, { gameId: GAME, batchId: may.batchId, all: "draft_unflagged" }, web(preparer));
    await approvePayoutBatch(db, { gameId: GAME, batchId: may.batchId }, web(approver));
    const change = await changePayoutDetails(
      db,
      { gameId: GAME, playerId: 8001, input: paypal("x@example.net") },
      fin1,
    );
    const decision = { gameId: GAME, playerId: 8001, changeId: change.changeId ?? "", decision: "approve" as const };
    await reviewPayoutChange(db, decision, fin2);
    const june = await prepare("2026-06", [8001]);
    expect(await flagsOf(june, 8001)).toEqual(["payout_details_changed"]);
    // May, approved before the change, is flagged too: recorded paid by hand only once the flag is overridden.
    const payment = { paidOn: "2026-06-02", method: "paypal", reference: "PP-2026-05" } as const;
    // The page does not offer recording May paid while the flag stands; June, not approved, is not read.
    const mayBatch = { gameId: GAME, batchId: may.batchId, snapshotId: may.snapshotId };
    expect(await approvedBarredFromPayment(db, mayBatch)).toEqual([8001]);
    await expect(
      markStatementsPaid(db, { gameId: GAME, batchId: may.batchId, ...payment }, web(approver)),
    ).rejects.toThrow(
      /Nothing was recorded: a statement has a flag raised since approval .*recipient 8001 \(Payout details/,
    );
    const paidBefore = "Paid to the former address on 2026-06-02, before the change";
    const mayFlag = { gameId: GAME, batchId: may.batchId, flag: "payout_details_changed", recipientPlayerId: 8001 };
    // By May's preparer: new details are confirmed by whoever did not enter them, the preparer included.
    await overrideFlag(db, { ...mayFlag, reason: paidBefore }, web(preparer));
    expect(await approvedBarredFromPayment(db, mayBatch)).toEqual([]);
    // May recorded as paid by hand says nothing of the new account: June stays flagged.
    await markStatementsPaid(db, { gameId: GAME, batchId: may.batchId, ...payment }, web(approver));
    expect(await flagsOf(june, 8001)).toEqual(["payout_details_changed"]);
  });
});

describe("approved statements of a draft batch, as its page reads them", () => {
  it("finds a flag raised since approval on any of them, reading only those a flag can stand on", async () => {
    const ids = [8101, 8102, 8103, 8104, 8105];
    for (const id of ids)
      await changePayoutDetails(db, { gameId: GAME, playerId: id, input: paypal(`r${id}@example.com`) }, fin1);
    const oct = await prepare("2026-10", ids);
    await approveStatements(db, { gameId: GAME, batchId: oct.batchId, all: "draft_unflagged" }, web(preparer));
    const target = { gameId: GAME, batchId: oct.batchId, snapshotId: oct.snapshotId };
    const candidates = async () =>
      (
        await listFlagCandidates(db, { ...target, state: "approved", profilesInUse: true, taxFormBy: null, also: [] })
      ).map((c) => c.recipientPlayerId);
    expect(await approvedWithOpenFlags(db, target)).toEqual([]);
    expect(await candidates()).toEqual([]);
    // 8102's details change after its statement was approved: only that statement is read, and it is flagged.
    const change = await changePayoutDetails(
      db,
      { gameId: GAME, playerId: 8102, input: paypal("moved@example.com") },
      fin1,
    );
    await reviewPayoutChange(
      db,
      { gameId: GAME, playerId: 8102, changeId: change.changeId ?? "", decision: "approve" },
      fin2,
    );
    expect(await candidates()).toEqual([8102]);
    expect(await approvedWithOpenFlags(db, target)).toEqual([8102]);
    // 8104's payment was rejected by the provider; 8105's statement email was refused for good.
    const statements = await listPayoutStatements(db, { gameId: GAME, batchId: oct.batchId });
    const of = (id: number) => statements.find((st) => st.recipientPlayerId === id);
    await sql`insert into payment_return (game_id, batch_id, statement_id, recipient_player_id, kind, amount_usd,
        reason, via) values (${GAME}, ${oct.batchId}, ${of(8104)?.id}, 8104, 'rejected', 40.00, 'account closed',
        'web')`.execute(db);
    await sql`insert into statement_delivery_failure (game_id, recipient_player_id, statement_id, server_answer,
        failed_at, to_address, refused) values (${GAME}, 8105, ${of(8105)?.id}, '550 5.1.1 no such mailbox', now(),
        ${of(8105)?.playerEmail}, true)`.execute(db);
    expect(await approvedWithOpenFlags(db, target)).toEqual([8102, 8104, 8105]);
    // The same as evaluating every approved statement's flags.
    const all = await readBatchFlags(db, target);
    const everyOne = statements
      .filter((st) => st.state === "approved" && openFlagsOf(all, st.recipientPlayerId, st.recipientFlags).length > 0)
      .map((st) => st.recipientPlayerId);
    expect(everyOne).toEqual([8102, 8104, 8105]);
    // A statement no flag can stand on is found without listing the candidates: 8101 and 8103 here; none once every
    // recipient is one (the tax form required below, and 8101 and 8103 given, as a chargeback's recipients are).
    const rules = { ...target, state: "approved", profilesInUse: true } as const;
    expect(await hasStatementNoFlagCanStandOn(db, { ...rules, taxFormBy: null, also: [8101] })).toBe(true);
    expect(await hasStatementNoFlagCanStandOn(db, { ...rules, taxFormBy: null, also: [8101, 8103] })).toBe(false);
    expect(await hasStatementNoFlagCanStandOn(db, { ...rules, taxFormBy: "2026-11-01", also: [] })).toBe(false);
    // A tax form required since: every recipient without one.
    await saveProfileSettings(db, { requireTaxForm: true }, { actor: approver, via: "web" });
    try {
      expect(await approvedWithOpenFlags(db, target)).toEqual(ids);
    } finally {
      await saveProfileSettings(db, { requireTaxForm: false }, { actor: approver, via: "web" });
    }
  });
});

describe("a flag raised since approval that stops a payment", () => {
  it("is overridden by someone other than the preparer, and stops a payment by hand until then", async () => {
    await changePayoutDetails(db, { gameId: GAME, playerId: 8003, input: paypal("third@example.com") }, fin1);
    const july = await prepare("2026-07", [8003]);
    await approveStatements(db, { gameId: GAME, batchId: july.batchId, all: "draft_unflagged" }, web(preparer));
    await approvePayoutBatch(db, { gameId: GAME, batchId: july.batchId }, web(approver));
    await saveProfileSettings(db, { requireTaxForm: true }, { actor: approver, via: "web" });
    try {
      expect(await flagsOf(july, 8003)).toEqual(["tax_form_missing"]);
      const julyBatch = { gameId: GAME, batchId: july.batchId, snapshotId: july.snapshotId };
      expect(await approvedBarredFromPayment(db, julyBatch)).toEqual([8003]);
      const payment = { paidOn: "2026-08-02", method: "paypal", reference: "PP-2026-07" } as const;
      await expect(
        markStatementsPaid(db, { gameId: GAME, batchId: july.batchId, ...payment }, web(approver)),
      ).rejects.toThrow(/stops its payment \(recipient 8003 \(Tax form missing\)\)/);
      const taxFlag = { gameId: GAME, batchId: july.batchId, flag: "tax_form_missing", recipientPlayerId: 8003 };
      const reason = "W-9 received by post on 2026-08-01, scanned next week";
      await expect(overrideFlag(db, { ...taxFlag, reason }, web(preparer))).rejects.toThrow(
        /you prepared this batch, so once it is approved someone else overrides a flag that stops a payment/,
      );
      await overrideFlag(db, { ...taxFlag, reason }, web(approver));
      expect(await approvedBarredFromPayment(db, julyBatch)).toEqual([]);
      expect(await markStatementsPaid(db, { gameId: GAME, batchId: july.batchId, ...payment }, web(approver))).toEqual(
        expect.objectContaining({ paid: 1 }),
      );
    } finally {
      await saveProfileSettings(db, { requireTaxForm: false }, { actor: approver, via: "web" });
    }
  });
});

describe("a tax form recorded while a payment file is being made", () => {
  it("waits for the file, which read the flags from the form before it (refused past the wait)", async () => {
    const waited = PAYOUT_LOCK_WAIT.ms;
    PAYOUT_LOCK_WAIT.ms = 300;
    const input = { taxForm: "none" as const, taxFormReceivedOn: undefined, taxFormExpiresOn: undefined };
    let outcome: unknown;
    try {
      await db.transaction().execute(async (trx) => {
        expect(await lockPayoutsOfGame(trx, GAME, 1_000)).toBe(true);
        outcome = await setTaxForm(db, { gameId: GAME, playerId: 8001, input }, fin1).then(
          (done) => done,
          (error: unknown) => error,
        );
      });
    } finally {
      PAYOUT_LOCK_WAIT.ms = waited;
    }
    expect(outcome).toMatchObject({ code: "CONFLICT", message: PAYOUTS_BUSY });
  });
});

async function draftIds(batchId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("payout_statement")
    .select("id")
    .where("batch_id", "=", batchId)
    .where("state", "=", "draft")
    .execute();
  return rows.map((r) => r.id);
}
