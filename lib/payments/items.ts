import "server-only";
import { outsideSepaArea } from "./sepa-area";
import type { PayoutInstruction } from "@/lib/profiles/details";
import { convertUsd } from "./fx";
import { creditTransferProblem, payerAddressProblem } from "./formats/pain001";
import { type PayableItem, type PaymentMethod, payableItemSchema } from "./formats/types";
import type { FileMethod } from "./schemas";

/**
 * Which recipients a payment file of a method can pay, and the item it writes for each: pure, so the rules read in one
 * place. A refusal is a reason shown to the person making the file (never the details themselves).
 */

export type Candidate = {
  statementId: string;
  recipientPlayerId: number;
  playerName: string | null;
  payableUsd: string;
  reference: string;
  /** The recipient's open flags (not overridden) that bar a payment even after approval (PAYMENT_BARS). */
  bars: readonly PaymentBar[];
};

/**
 * A flag raised after approval that still stops the money: approval checked the details, the tax form and the
 * renewals as they were, so a payment that came back, details changed since (a new account nobody confirmed with the
 * recipient), a required tax form that expired or a renewal disputed since (a chargeback opened, or lost: the service
 * reports no reversal for it, so no later statement takes it back) keep the recipient out of a file until resolved or
 * overridden with a reason.
 */
export const PAYMENT_BARS = {
  disputed_renewal:
    "a renewal it pays for is disputed (a chargeback opened or lost since approval); wait for the outcome, or " +
    "hold the statement, or override the flag with what was checked",
  payment_returned: "a payment to these details came back; update the details (or override the flag)",
  payout_details_changed:
    "the payout details changed after approval; confirm the change with the recipient, then override the flag",
  tax_form_missing: "the required tax form is missing or expired; add it (or override the flag)",
} as const;
export type PaymentBar = keyof typeof PAYMENT_BARS;

export const isPaymentBar = (flag: string): flag is PaymentBar => Object.hasOwn(PAYMENT_BARS, flag);

export type ItemOrRefusal = { ok: true; item: PayableItem; amountCurrency: string } | { ok: false; reason: string };

/** The profile methods each kind of file pays. */
export const PROFILE_METHODS: Record<FileMethod, readonly string[]> = {
  paypal: ["paypal"],
  wise: ["wise"],
  sepa: ["bank_transfer"],
  generic: ["paypal", "wise", "bank_transfer"],
};

function methodOf(instruction: PayoutInstruction): { method: PaymentMethod; name: string | null } | null {
  const d = instruction.details;
  switch (d.method) {
    case "paypal":
      if (d.paypalEmail) return { method: { kind: "email", email: d.paypalEmail }, name: null };
      return d.paypalPayerId ? { method: { kind: "paypal_payer_id", payerId: d.paypalPayerId }, name: null } : null;
    case "wise":
      return { method: { kind: "email", email: d.wiseEmail }, name: d.wiseName };
    case "bank_transfer":
      return {
        method: { kind: "bank", iban: d.iban, bic: d.bic, holder: d.accountHolder, country: d.bankCountry },
        name: d.accountHolder,
      };
    case "manual":
      return null;
  }
}

/** How a recipient's profile says they are paid, as a file's list of those left out tells it. */
const PAID_HOW: Record<PayoutInstruction["method"], string> = {
  paypal: "by PayPal",
  wise: "by Wise",
  bank_transfer: "by bank transfer",
  manual: "by hand, outside any file",
};

export function itemFor(
  candidate: Candidate,
  instruction: PayoutInstruction | undefined,
  file: {
    method: FileMethod;
    eurRate: string | null;
    note: string;
    /** A SEPA file's payer account: its IBAN and address (its town), or none set. */
    payer?: { iban: string; address: { town: string } | null } | null;
  },
): ItemOrRefusal {
  if (!instruction) return { ok: false, reason: "no payout method on the recipient's profile" };
  const bar = candidate.bars[0];
  if (bar) return { ok: false, reason: PAYMENT_BARS[bar] };
  if (!PROFILE_METHODS[file.method].includes(instruction.method))
    return { ok: false, reason: `the recipient is paid ${PAID_HOW[instruction.method]}` };
  const currency = instruction.currency;
  if (file.method === "sepa" && currency !== "EUR")
    return { ok: false, reason: `SEPA pays in EUR; the recipient is paid in ${currency}` };
  if (currency !== "USD" && currency !== "EUR")
    return { ok: false, reason: `no rate for ${currency}: only USD and EUR payouts are written to files` };
  if (currency === "EUR" && file.eurRate === null) return { ok: false, reason: "paid in EUR and no EUR rate given" };
  const how = methodOf(instruction);
  if (!how) return { ok: false, reason: "the recipient is paid by hand" };
  // A SEPA transfer reaches only accounts in the SEPA area; a bank would refuse the file's block for one outside it.
  const outside = how.method.kind === "bank" ? outsideSepaArea(how.method.iban, how.method.bic) : null;
  if (file.method === "sepa" && outside) return { ok: false, reason: `${outside}, outside the SEPA area` };
  const converted = currency === "EUR" && file.eurRate !== null ? convertUsd(candidate.payableUsd, file.eurRate) : null;
  const item: PayableItem = {
    reference: candidate.reference,
    amountUsd: candidate.payableUsd,
    currency,
    convertedAmount: converted,
    recipientName: how.name ?? playerNameForFile(candidate),
    method: how.method,
    note: file.note,
  };
  // Details saved before a rule of the files was added (an email longer than a file holds, a holder in a script SEPA
  // cannot carry) would stop everyone's file: this recipient is left out instead, saying what to mend (no value).
  const noPayerAddress = file.method === "sepa" ? payerAddressProblem(item, file.payer) : null;
  if (noPayerAddress) return { ok: false, reason: noPayerAddress };
  const unwritable = unwritableDetails(item, file.method);
  if (unwritable) return { ok: false, reason: unwritable };
  return { ok: true, amountCurrency: converted ?? candidate.payableUsd, item };
}

/** The payout details' fields an item carries, as the profile's form names them. */
const DETAIL_FIELDS: Readonly<Record<string, string>> = {
  email: "email",
  payerId: "PayPal PayerID",
  iban: "IBAN",
  bic: "BIC",
  holder: "account holder",
  country: "bank country",
};

/** Why a file of `method` could not carry the item, in words naming fields, never values; null when it can. */
function unwritableDetails(item: PayableItem, method: FileMethod): string | null {
  const parsed = payableItemSchema.safeParse(item);
  if (!parsed.success) {
    const paths = parsed.error.issues.map((issue) => String(issue.path.at(-1)));
    const details = [...new Set(paths.flatMap((field) => DETAIL_FIELDS[field] ?? []))];
    if (details.length === 0) return "cannot be written to a payment file";
    return (
      `the stored ${details.join(", ")} ${details.length === 1 ? "is" : "are"} not accepted in a payment file: ` +
      "save the payout details again on the profile"
    );
  }
  if (method !== "sepa") return null;
  const problem = creditTransferProblem(item);
  return problem ? `${problem}: save the payout details again on the profile` : null;
}

/** The most characters a file's recipient name holds (payableItemSchema). */
const NAME_MAX = 140;

/**
 * The service's player name as the name a file gives its recipient (PayPal and the generic file have no name of the
 * profile's): trimmed and cut to what a file holds, or "Player N" when the service has none or only spaces. The
 * service reports any text as a name; one recipient's must not stop the file of everyone else.
 */
export function playerNameForFile(candidate: Pick<Candidate, "playerName" | "recipientPlayerId">): string {
  let name = "";
  for (const character of (candidate.playerName ?? "").trim()) {
    if (name.length + character.length > NAME_MAX) break;
    name += character;
  }
  name = name.trim();
  return name === "" ? `Player ${candidate.recipientPlayerId}` : name;
}
