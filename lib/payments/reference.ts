import { createHash } from "node:crypto";

/**
 * The payment reference of a statement: what a payment file carries for it (PayPal's Customer ID, Wise's
 * paymentReference, ISO 20022's EndToEndId) and what a provider's results file gives back.
 *
 *   <GAME>-<YYYYMM>-<CODE>     e.g. "STARQUEST-202610-7K3M9Q2XWD4B"
 *
 * GAME: the game id upper-cased, anything outside A-Z 0-9 dropped, at most 9 characters (at least "G").
 * YYYYMM: the window's month. CODE: 12 characters of Crockford base-32 of SHA-256(statement id): 60 bits, so two
 * statements of one game share a code with probability about n² / 2⁶¹ (1e-6 for a million statements); the
 * column payout_statement.provider_reference is unique per game, so even that case fails loudly, never silently.
 *
 * At most 9 + 1 + 6 + 1 + 12 = 29 characters, only [A-Z0-9-]: within PayPal's Customer ID, Wise's reference and
 * ISO 20022's EndToEndId (Max35Text) limits and the SEPA character set. The same inputs always give the same
 * reference.
 *
 * A statement filed again (its file cancelled, its payment rejected or returned) is sent under a reference of its
 * own for each filing: the code of filing n ≥ 2 is that of "<statement id>#<n>". A provider's results then name the
 * file they answer, so a report of a cancelled file the provider executed after all is never read as the answer of
 * the file that replaced it. The first filing's reference is the statement's (payout_statement.provider_reference).
 */

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const PAYMENT_REFERENCE_PATTERN = /^[A-Z0-9]{1,9}-\d{6}-[0-9A-HJKMNP-TV-Z]{12}$/;

export type PaymentReferenceInput = {
  gameId: string;
  /** The window's month, "2026-10". */
  month: string;
  statementId: string;
  /** Which filing of the statement: 1 (the default) for its first payment file, n for its n-th. */
  filing?: number;
};

export function paymentReference(input: PaymentReferenceInput): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(input.month)) throw new Error(`not a month: ${JSON.stringify(input.month)}`);
  if (input.statementId.length === 0) throw new Error("a statement id is needed");
  const filing = input.filing ?? 1;
  if (!Number.isInteger(filing) || filing < 1) throw new Error(`not a filing: ${filing}`);
  const game =
    input.gameId
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, "")
      .slice(0, 9) || "G";
  const code = shortCode(filing === 1 ? input.statementId : `${input.statementId}#${filing}`);
  return `${game}-${input.month.replace("-", "")}-${code}`;
}

function shortCode(statementId: string): string {
  const digest = createHash("sha256").update(statementId, "utf8").digest();
  // 12 characters × 5 bits = 60 bits, read from the first 8 bytes.
  let bits = digest.readBigUInt64BE(0) >> 4n;
  let code = "";
  for (let i = 0; i < 12; i++) {
    code = CROCKFORD[Number(bits & 31n)] + code;
    bits >>= 5n;
  }
  return code;
}
