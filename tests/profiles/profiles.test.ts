import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db";
import { openSecret } from "@/lib/crypto";
import { rotateKey } from "@/lib/keys/rotate";
import { payoutDetailsContext } from "@/lib/keys/sealed-columns";
import { openPayoutDetails } from "@/lib/profiles/details";
import { maskDetails } from "@/lib/profiles/mask";
import {
  changePayoutDetails,
  loadProfileView,
  type ProfileActing,
  reviewPayoutChange,
  setTaxForm,
  taxFormDrawn,
} from "@/lib/profiles/profiles";
import { payoutDetailsInputSchema, taxFormInputSchema } from "@/lib/profiles/schemas";
import type { TestDatabase } from "../support/db";
import { bank, createProfilesDatabase, finance, finance2 } from "./support";
import { GAME } from "../payouts/fixtures";

/**
 * Payout profiles: details sealed at rest and masked everywhere, the first details applying at once and every later
 * change waiting for a second finance user, every step audited.
 */

let t: TestDatabase;
let db: Db;
const IBAN = "DE89370400440532013000";
const NEXT_IBAN = "FR1420041010050500013M02606";
const admin: ProfileActing = { actor: { id: "u-admin", email: "admin@payout-desk.test" }, role: "admin", via: "cli" };
const support: ProfileActing = { actor: { id: "u-sup", email: "sup@payout-desk.test" }, role: "support", via: "web" };

/** Every row of every table, as text. */
async function everyTextCell(): Promise<string[]> {
  const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(db);
  const cells: string[] = [];
  for (const { table_name } of tables.rows) {
    const { rows } = await sql<{ row: string }>`select t::text as row from ${sql.table(table_name)} t`.execute(db);
    cells.push(...rows.map((r) => r.row));
  }
  return cells;
}

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
  db = t.db;
});
afterAll(async () => t?.drop());

describe("schemas", () => {
  it("stop at the format before a refinement, and check IBAN, BIC, currency and dates", () => {
    const bad = payoutDetailsInputSchema.safeParse({
      method: "bank_transfer",
      currency: "euro",
      accountHolder: "A",
      iban: "not an iban",
      bic: "??",
      bankCountry: "DE",
    });
    expect(bad.success).toBe(false);
    const messages = bad.error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`) ?? [];
    expect(messages).toContain("currency: must be a three-letter ISO 4217 code such as EUR");
    expect(messages.some((m) => m.startsWith("iban: must be an IBAN"))).toBe(true);
    expect(messages.some((m) => m.startsWith("bic: must be 8 or 11"))).toBe(true);
    // The right shape with wrong check digits, and a currency that does not exist.
    const checksum = payoutDetailsInputSchema.safeParse({
      ...bank(IBAN),
      iban: "DE89370400440532013001",
      currency: "XYZ",
    });
    expect(checksum.error?.issues.map((i) => i.message)).toEqual(
      expect.arrayContaining([
        "is not a valid IBAN (its check digits or length are wrong)",
        "is not an ISO 4217 currency code",
      ]),
    );
    expect(bank("de89 3704 0044 0532 0130 00")).toMatchObject({ iban: IBAN, currency: "EUR" });
    expect(payoutDetailsInputSchema.safeParse({ method: "paypal", currency: "USD" }).error?.issues[0]?.message).toMatch(
      /PayPal email or the PayPal payer id/,
    );
    expect(
      taxFormInputSchema.safeParse({ taxForm: "W-9", taxFormReceivedOn: "2026-02-30" }).error?.issues[0]?.message,
    ).toBe("The received date is not a calendar date");
  });

  it("masks to the method and the last four characters, an email to its first character and domain", () => {
    expect(maskDetails(bank(IBAN))).toBe("IBAN ••••3000, BIC ••••FXXX");
    expect(maskDetails({ method: "paypal", paypalPayerId: "7QPAZ3HJ4KXVE" })).toBe("PayPal payer id ••••KXVE");
    expect(maskDetails({ method: "wise", wiseEmail: "kim@example.org", wiseName: "Kim" })).toBe(
      "Wise k•••@example.org",
    );
    // Another address at the same provider reads differently: a reviewer sees the change.
    expect(maskDetails({ method: "paypal", paypalEmail: "mallory@example.org" })).toBe("PayPal m•••@example.org");
    // A mailbox of one or two characters would be given whole by its first: none of it is shown.
    expect(maskDetails({ method: "paypal", paypalEmail: "a@company.example" })).toBe("PayPal •••@company.example");
    expect(maskDetails({ method: "paypal", paypalEmail: "ab@company.example" })).toBe("PayPal •••@company.example");
  });

  it("keeps a payout email in lower case, so one typed in capitals is not new details", () => {
    const parsed = payoutDetailsInputSchema.parse({
      method: "wise",
      wiseEmail: "Kim@Example.ORG",
      wiseName: "Kim",
      currency: "EUR",
    });
    expect(parsed).toMatchObject({ wiseEmail: "kim@example.org" });
  });
});

describe("two-person review", () => {
  it("applies the first details at once and holds a later change for a second finance user", async () => {
    await expect(changePayoutDetails(db, { gameId: GAME, playerId: 501, input: bank(IBAN) }, support)).rejects.toThrow(
      /Only finance users/,
    );
    const first = await changePayoutDetails(db, { gameId: GAME, playerId: 501, input: bank(IBAN) }, finance);
    expect(first).toMatchObject({ outcome: "applied", masked: "IBAN ••••3000, BIC ••••FXXX" });
    const same = await changePayoutDetails(db, { gameId: GAME, playerId: 501, input: bank(IBAN) }, finance2);
    expect(same.outcome).toBe("unchanged");

    const change = await changePayoutDetails(
      db,
      { gameId: GAME, playerId: 501, input: bank(NEXT_IBAN, "BNPAFRPPXXX", "FR") },
      finance,
    );
    expect(change.outcome).toBe("pending");
    // Still paid to the details in force until the change is approved.
    const before = await openPayoutDetails(db, GAME, [501, 502]);
    expect([...before.keys()]).toEqual([501]);
    expect(before.get(501)).toMatchObject({ method: "bank_transfer", currency: "EUR", details: { iban: IBAN } });

    const changeId = change.changeId ?? "";
    await expect(
      reviewPayoutChange(db, { gameId: GAME, playerId: 501, changeId, decision: "approve" }, finance),
    ).rejects.toThrow(/a second finance user reviews it/);
    await expect(
      reviewPayoutChange(db, { gameId: GAME, playerId: 501, changeId, decision: "approve" }, support),
    ).rejects.toThrow(/Only finance users review/);
    // An admin counts as finance.
    expect(await reviewPayoutChange(db, { gameId: GAME, playerId: 501, changeId, decision: "approve" }, admin)).toEqual(
      { outcome: "approved", masked: "IBAN ••••2606, BIC ••••PXXX" },
    );
    await expect(
      reviewPayoutChange(db, { gameId: GAME, playerId: 501, changeId, decision: "approve" }, finance2),
    ).rejects.toThrow(/no longer waiting/);
    expect((await openPayoutDetails(db, GAME, [501])).get(501)?.details).toMatchObject({
      iban: NEXT_IBAN,
      bic: "BNPAFRPPXXX",
    });

    const rejected = await changePayoutDetails(
      db,
      { gameId: GAME, playerId: 501, input: { method: "paypal", currency: "USD", paypalEmail: "ada@example.com" } },
      finance2,
    );
    await reviewPayoutChange(
      db,
      { gameId: GAME, playerId: 501, changeId: rejected.changeId ?? "", decision: "reject", note: "not asked for" },
      finance,
    );
    await setTaxForm(
      db,
      {
        gameId: GAME,
        playerId: 501,
        input: taxFormInputSchema.parse({
          taxForm: "W-8BEN",
          taxFormReceivedOn: "2026-01-05",
          taxFormExpiresOn: "2029-12-31",
        }),
      },
      finance,
    );

    const view = await loadProfileView(db, { gameId: GAME, playerId: 501 });
    expect(view.pending).toBeNull();
    expect(view.profile).toMatchObject({
      method: "bank_transfer",
      detailsMasked: "IBAN ••••2606, BIC ••••PXXX",
      detailsVersion: 2,
      taxForm: "W-8BEN",
      taxFormReceivedOn: "2026-01-05",
    });
    expect(view.history.map((h) => [h.kind, h.status, h.enteredByEmail, h.reviewedByEmail])).toEqual([
      ["tax_form", "applied", "fin1@payout-desk.test", null],
      ["details", "rejected", "fin2@payout-desk.test", "fin1@payout-desk.test"],
      ["details", "approved", "fin1@payout-desk.test", "admin@payout-desk.test"],
      ["details", "applied", "fin1@payout-desk.test", null],
    ]);
    const audit = await db
      .selectFrom("audit_log")
      .select(["action", "outcome", "actor_email", "via"])
      .where("action", "like", "profiles.%")
      .orderBy("id")
      .execute();
    expect(audit.map((a) => `${a.action} ${a.outcome} ${a.actor_email} ${a.via}`)).toEqual([
      "profiles.details.set applied fin1@payout-desk.test web",
      "profiles.details.change pending fin1@payout-desk.test web",
      // The one who entered the change tried to approve it: refused, and the attempt kept (the support user's refusal
      // is by role, checked before any action runs, and not audited).
      "profiles.details.approve refused_two_person_rule fin1@payout-desk.test web",
      "profiles.details.approve approved admin@payout-desk.test cli",
      "profiles.details.change pending fin2@payout-desk.test web",
      "profiles.details.reject rejected fin1@payout-desk.test web",
      "profiles.tax_form.set applied fin1@payout-desk.test web",
    ]);
  });

  it("refuses a tax form saved from a page drawn before a colleague's change, instead of overwriting it", async () => {
    const form = (taxForm: string, taxFormReceivedOn: string, taxFormExpiresOn?: string) =>
      taxFormInputSchema.parse({ taxForm, taxFormReceivedOn, taxFormExpiresOn });
    const w8 = form("W-8BEN", "2026-01-05", "2029-12-31");
    await setTaxForm(db, { gameId: GAME, playerId: 502, input: w8 }, finance);
    const drawn = taxFormDrawn({ taxForm: "W-8BEN", taxFormReceivedOn: "2026-01-05", taxFormExpiresOn: "2029-12-31" });
    // A colleague records a W-9 meanwhile; the first page, drawn with the W-8BEN, only corrects the expiry.
    await setTaxForm(db, { gameId: GAME, playerId: 502, input: form("W-9", "2026-04-01"), drawn }, finance2);
    const stale = { ...w8, taxFormExpiresOn: "2028-12-31" };
    await expect(setTaxForm(db, { gameId: GAME, playerId: 502, input: stale, drawn }, finance)).rejects.toMatchObject({
      code: "CONFLICT",
    });
    const view = await loadProfileView(db, { gameId: GAME, playerId: 502 });
    expect(view.profile).toMatchObject({ taxForm: "W-9", taxFormReceivedOn: "2026-04-01" });
  });

  it("never keeps a plain IBAN, BIC, email or holder in any table, and a rotation re-seals details", async () => {
    const pending = await changePayoutDetails(
      db,
      {
        gameId: GAME,
        playerId: 501,
        input: {
          method: "wise",
          currency: "GBP",
          wiseEmail: "lovelace@wise-mail.example",
          wiseName: "Countess Lovelace",
        },
      },
      finance,
    );
    expect(pending.outcome).toBe("pending");
    const cells = await everyTextCell();
    expect(cells.some((c) => c.includes("••••2606"))).toBe(true);
    for (const plain of [
      IBAN,
      NEXT_IBAN,
      "BNPAFRPPXXX",
      "COBADEFFXXX",
      "Ada Lovelace",
      "ada@example.com",
      "lovelace@wise-mail.example",
      "Countess Lovelace",
    ]) {
      expect(cells.filter((c) => c.includes(plain))).toEqual([]);
    }
    // A sealed value moved to another recipient does not open.
    const sealed = await db
      .selectFrom("payout_profile")
      .select("details_sealed")
      .where("player_id", "=", "501")
      .executeTakeFirstOrThrow();
    await changePayoutDetails(db, { gameId: GAME, playerId: 502, input: bank(IBAN) }, finance);
    await db
      .updateTable("payout_profile")
      .set({ details_sealed: sealed.details_sealed })
      .where("player_id", "=", "502")
      .execute();
    await expect(openPayoutDetails(db, GAME, [502])).rejects.toThrow();
    await db.deleteFrom("payout_profile_change").where("player_id", "=", "502").execute();
    await db.deleteFrom("payout_profile").where("player_id", "=", "502").execute();

    const old = Buffer.from(process.env.PAYOUT_DESK_KEY ?? "", "base64");
    const next = randomBytes(32);
    const summary = await rotateKey(db, { newKey: next, actor: null, via: "cli" });
    expect(summary.resealed).toMatchObject({
      "payout_profile.details_sealed": 1,
      "payout_profile_change.details_sealed": 1,
    });
    // Both the profile's details and the pending change's now open with the new key alone, bound to their row.
    const rows = [
      ...(await db.selectFrom("payout_profile").select(["seal_ref", "details_sealed"]).execute()),
      ...(await db.selectFrom("payout_profile_change").select(["seal_ref", "details_sealed"]).execute()),
    ].filter((r) => r.details_sealed !== null);
    expect(rows).toHaveLength(2);
    const opened = rows.map((r) =>
      JSON.parse(openSecret(r.details_sealed ?? "", payoutDetailsContext(r.seal_ref), next)),
    );
    expect(opened.map((d) => d.method).sort()).toEqual(["bank_transfer", "wise"]);
    expect(() =>
      openSecret(rows[0]?.details_sealed ?? "", payoutDetailsContext(rows[0]?.seal_ref ?? ""), old),
    ).toThrow();
  });
});
