import "server-only";
import { composeIBAN } from "ibantools";
import type { Db } from "@/db";
import { gameUsesProfiles } from "@/db/queries/profiles";
import { findUserIdByEmail } from "@/db/queries/users";
import {
  changePayoutDetails,
  changePayoutDetailsIn,
  type ProfileActing,
  reviewPayoutChange,
  setTaxFormIn,
} from "./profiles";
import { type PayoutDetailsInput, payoutDetailsInputSchema } from "./schemas";

/**
 * The demo's two finance users as they act here: their accounts' ids when they exist (a start makes them first), so
 * that the two-person rule holds for them on the seeded changes as on any other.
 */
async function demoFinance(db: Db, email: string, standIn: string): Promise<ProfileActing> {
  const id = await findUserIdByEmail(db, email);
  return { actor: { id: id ?? standIn, email }, role: "finance", via: "job" };
}

/** A valid German IBAN for a demo account number (bank code of a test bank; check digits computed). */
function demoIban(account: number): string {
  const iban = composeIBAN({ countryCode: "DE", bban: `37040044${String(account).padStart(10, "0")}` });
  if (!iban) throw new Error("demo IBAN could not be composed");
  return iban;
}

function demoDetails(playerId: number, n: number): PayoutDetailsInput {
  const kind = n % 5;
  const raw =
    kind === 0 || kind === 1
      ? {
          method: "bank_transfer",
          currency: "EUR",
          accountHolder: `Demo Creator ${playerId}`,
          iban: demoIban(5_320_000 + playerId),
          bic: "COBADEFFXXX",
          bankCountry: "DE",
        }
      : kind === 2
        ? { method: "paypal", currency: "USD", paypalEmail: `creator${playerId}@paypal.example` }
        : kind === 3
          ? {
              method: "wise",
              currency: "GBP",
              wiseEmail: `creator${playerId}@wise.example`,
              wiseName: `Creator ${playerId}`,
            }
          : { method: "manual", currency: "USD" };
  return payoutDetailsInputSchema.parse(raw);
}

/**
 * Demo payout profiles for the demo game's recipients, once (a game that has profiles already is left alone): every
 * kind of method, EUR bank accounts with valid IBANs, every tenth recipient without a profile, a few tax forms, one
 * recipient whose details changed (reviewed by the second finance user) since they were last paid and one change
 * still waiting for review. Goes through the same domain functions as the app, so every step is in the audit log.
 */
export async function seedDemoProfiles(db: Db, p: { gameId: string; playerIds: readonly number[] }): Promise<number> {
  if (await gameUsesProfiles(db, p)) return 0;
  const DEMO_FINANCE = await demoFinance(db, "finance@payout-desk.test", "demo-seed-finance");
  const DEMO_REVIEWER = await demoFinance(db, "finance2@payout-desk.test", "demo-seed-reviewer");
  // One transaction for the lot: a first start seeds some hundred recipients in a moment.
  const seeded = await db.transaction().execute(async (trx) => {
    let count = 0;
    for (const [n, playerId] of p.playerIds.entries()) {
      if (n % 10 === 9) continue;
      await changePayoutDetailsIn(trx, { gameId: p.gameId, playerId, input: demoDetails(playerId, n) }, DEMO_FINANCE);
      if (n % 4 === 0) {
        const taxForm = n % 8 === 0 ? "W-9" : "W-8BEN";
        // A W-8 form is valid to the end of the third calendar year after signing.
        const taxFormExpiresOn = taxForm === "W-9" ? undefined : "2029-12-31";
        const input = { taxForm, taxFormReceivedOn: "2026-01-15", taxFormExpiresOn } as const;
        await setTaxFormIn(trx, { gameId: p.gameId, playerId, input }, DEMO_FINANCE);
      }
      count++;
    }
    return count;
  });
  const [changed, waiting] = p.playerIds;
  if (changed !== undefined) {
    const change = await changePayoutDetails(
      db,
      { gameId: p.gameId, playerId: changed, input: demoDetails(changed + 1_000, 0) },
      DEMO_FINANCE,
    );
    if (change.changeId)
      await reviewPayoutChange(
        db,
        {
          gameId: p.gameId,
          playerId: changed,
          changeId: change.changeId,
          decision: "approve",
          note: "Demo: confirmed by phone",
        },
        DEMO_REVIEWER,
      );
  }
  if (waiting !== undefined)
    await changePayoutDetails(
      db,
      { gameId: p.gameId, playerId: waiting, input: demoDetails(waiting + 2_000, 1) },
      DEMO_FINANCE,
    );
  return seeded;
}
