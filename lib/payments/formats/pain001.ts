import "server-only";
import { electronicFormatIBAN, isQRIBAN, isValidBIC, isValidIBAN } from "ibantools";
import { XMLBuilder } from "fast-xml-parser";
import { z } from "zod";
import { Money } from "@/core/money";
import { countOf } from "@/lib/format";
import { sepaHolderProblem, sepaText } from "./sepa-text";
import { countryOutsideEea, outsideEea } from "../sepa-area";
import {
  byCurrency,
  type PayableItem,
  PaymentFileError,
  payoutAmount,
  sumAmounts,
  validateItems,
  type WrittenFile,
  writtenFile,
} from "./types";

/**
 * ISO 20022 customer credit transfer initiation, pain.001.001.09 (CstmrCdtTrfInitn), SEPA Credit Transfer when
 * the currency is EUR (EPC SCT customer-to-bank implementation guidelines). One file per currency, one PmtInf.
 *
 * Rules each check follows:
 * - GrpHdr: MsgId (Max35Text, unique per message: `<messageId>-<CCY>`), CreDtTm (ISODateTime, UTC), NbOfTxs (the
 *   number of CdtTrfTxInf), CtrlSum (the sum of every InstdAmt, i.e. of the already-rounded amounts; fx.ts),
 *   InitgPty/Nm. The same NbOfTxs and CtrlSum are repeated on PmtInf.
 * - PmtInf: PmtInfId (Max35Text), PmtMtd TRF, PmtTpInf/SvcLvl/Cd SEPA (EUR only), ReqdExctnDt/Dt (ISODate; the
 *   .09 version wraps the date in a Dt/DtTm choice), Dbtr/Nm, DbtrAcct/Id/IBAN, DbtrAgt/FinInstnId/BICFI (the .09
 *   name of the BIC element), ChrgBr SLEV for SEPA (EPC: charges follow the scheme), SHAR otherwise.
 * - CdtTrfTxInf, in schema order: PmtId/EndToEndId (our reference, Max35Text, unique in the file), Amt/InstdAmt
 *   with Ccy (at most 2 decimals, > 0), CdtrAgt/FinInstnId/BICFI (only when the BIC is known: SEPA allows
 *   IBAN-only), Cdtr/Nm (no postal address: see below), CdtrAcct/Id/IBAN, RmtInf/Ustrd (Max140Text).
 * - IBANs (ISO 13616, mod-97) and BICs (ISO 9362) checked with ibantools; a bad one refuses the item.
 * - Text: XML-escaped by the builder (& < > " '). For EUR (SEPA) every name and the remittance text are reduced to
 *   the SEPA character set (sepa-text.ts), names to 70 characters (EPC), Ustrd to 140; other currencies keep their
 *   text (escaped), names cut to 140 (Max140Text).
 */

const idSchema = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,29}$/, { message: "must be 1-29 characters of A-Z, a-z, 0-9 and -" });

export const pain001SettingsSchema = z.object({
  baseName: z.string().min(1),
  /** The message id stem; the file's MsgId is `<messageId>-<CCY>`. */
  messageId: idSchema,
  createdAt: z.date(),
  executionDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { message: "must be a date such as 2026-11-25" }),
  initiatingPartyName: z.string().trim().min(1).max(140),
  debtor: z.object({
    name: z.string().trim().min(1).max(140),
    iban: z.string().refine((v) => isValidIBAN(electronicFormatIBAN(v) ?? ""), { message: "is not a valid IBAN" }),
    bic: z.string().refine((v) => isValidBIC(v), { message: "is not a valid BIC" }),
    /** The payer's town and country: a transfer to an account outside the EEA must name them (sepa-area.ts). */
    address: z
      .object({ town: z.string().trim().min(1), country: z.string().regex(/^[A-Z]{2}$/) })
      .nullable()
      .optional(),
  }),
});
export type Pain001Settings = z.infer<typeof pain001SettingsSchema>;

/** The file name of the pain.001 of a run (`<baseName>-pain001-<CCY>.xml`). */
export function pain001FileName(baseName: string, currency: string): string {
  return `${baseName}-pain001-${currency}.xml`;
}

/** The message id stem of a run's pain.001 files (`messageId` of the settings): its base name, within Max35Text. */
export function pain001MessageStem(baseName: string): string {
  return baseName.slice(0, 29);
}

/**
 * The MsgId a pain.001 file of that name carries (written with pain001MessageStem), which a bank's status report
 * names as OrgnlMsgId.
 */
export function pain001MessageIdOf(fileName: string): string | null {
  const m = /^(.+)-pain001-([A-Z]{3})\.xml$/.exec(fileName);
  return m?.[1] && m[2] ? `${pain001MessageStem(m[1])}-${m[2]}` : null;
}

export const PAIN001_NAMESPACE = "urn:iso:std:iso:20022:tech:xsd:pain.001.001.09";

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@", format: true, indentBy: "  " });

/** What a payment file says of a holder's name a euro transfer cannot carry whole (sepaHolderProblem). */
const HOLDER_PROBLEMS: Record<NonNullable<ReturnType<typeof sepaHolderProblem>>, string> = {
  no_letters: "account holder has no letters of the SEPA character set",
  other_alphabet: "account holder has letters of another alphabet, which a euro transfer would leave out",
  too_long: "account holder is over 70 characters as a euro transfer writes it, which would cut it",
};

/** The largest amount of one SEPA credit transfer (EPC SCT rulebook): a bank refuses the whole file past it. */
const SEPA_MAX_AMOUNT = "999999999.99";

/**
 * Why a credit transfer file cannot carry this item (its account, its holder, its amount), in words naming no value;
 * null when it can. Read for each recipient before a file is made (lib/payments/items.ts) and again as it is written.
 */
export function creditTransferProblem(item: PayableItem): string | null {
  const m = item.method;
  if (m.kind !== "bank") return "recipient has no bank account";
  if (!isValidIBAN(m.iban)) return "IBAN fails its check digits";
  if (isQRIBAN(m.iban)) return "IBAN is a QR-IBAN, which takes only QR-bill payments";
  if (m.bic !== null && !isValidBIC(m.bic)) return "BIC is not valid";
  // What entering the details refuses (lib/profiles/schemas.ts), for details saved before: never cut or lost unseen.
  const holder = item.currency === "EUR" ? sepaHolderProblem(m.holder) : null;
  if (holder) return HOLDER_PROBLEMS[holder];
  if (item.currency === "EUR" && new Money(payoutAmount(item)).gt(SEPA_MAX_AMOUNT))
    return `over SEPA's largest transfer, EUR ${SEPA_MAX_AMOUNT}`;
  return null;
}

/**
 * A euro transfer between the EEA and an account outside it names the payer's address, whichever side is outside:
 * the problem when none is set, or null.
 */
export function payerAddressProblem(
  item: PayableItem,
  payer: { iban: string; address?: { town: string } | null } | null | undefined,
): string | null {
  if (payer?.address || item.currency !== "EUR" || item.method.kind !== "bank") return null;
  const from = payer ? countryOutsideEea(payer.iban) : null;
  if (from)
    return (
      `the payer's account is in ${from}, outside the EEA: a euro transfer from there names the payer's address, ` +
      "and none is set (PAYOUT_DESK_PAYER_TOWN and _COUNTRY)"
    );
  const to = outsideEea(item.method.iban);
  if (!to) return null;
  return (
    `${to}, outside the EEA: a euro transfer there names the payer's address, and none is set ` +
    "(PAYOUT_DESK_PAYER_TOWN and _COUNTRY)"
  );
}

export function writePain001Files(items: readonly PayableItem[], settingsInput: Pain001Settings): WrittenFile[] {
  const settings = pain001SettingsSchema.parse(settingsInput);
  const valid = validateItems(items);
  const problems: { reference: string; message: string }[] = [];
  for (const item of valid) {
    const message = creditTransferProblem(item) ?? payerAddressProblem(item, settings.debtor);
    if (message) problems.push({ reference: item.reference, message });
  }
  if (problems.length > 0)
    throw new PaymentFileError(`${countOf(problems.length, "item")} cannot be paid by credit transfer`, problems);

  return byCurrency(valid).map(([currency, rows]) => {
    const sepa = currency === "EUR";
    const text = (value: string, max: number) => (sepa ? sepaText(value, max) : value.trim().slice(0, max));
    const msgId = `${settings.messageId}-${currency}`;
    const address = settings.debtor.address;
    const total = sumAmounts(rows.map(payoutAmount));
    const transfers = rows.map((item) => {
      const m = item.method as Extract<PayableItem["method"], { kind: "bank" }>;
      return {
        PmtId: { EndToEndId: item.reference },
        Amt: { InstdAmt: { "@Ccy": currency, "#text": payoutAmount(item) } },
        ...(m.bic ? { CdtrAgt: { FinInstnId: { BICFI: m.bic } } } : {}),
        // No PstlAdr: the profile knows the bank's country, not where the payee lives, and from November 2026 an
        // address must carry at least a town and a country (EPC); SEPA needs no creditor address within the EEA.
        Cdtr: { Nm: text(m.holder, sepa ? 70 : 140) },
        CdtrAcct: { Id: { IBAN: m.iban } },
        ...(item.note.trim() ? { RmtInf: { Ustrd: text(item.note, 140) } } : {}),
      };
    });
    const document = {
      "?xml": { "@version": "1.0", "@encoding": "UTF-8" },
      Document: {
        "@xmlns": PAIN001_NAMESPACE,
        CstmrCdtTrfInitn: {
          GrpHdr: {
            MsgId: msgId,
            CreDtTm: `${settings.createdAt.toISOString().slice(0, 19)}Z`,
            NbOfTxs: String(rows.length),
            CtrlSum: total,
            InitgPty: { Nm: text(settings.initiatingPartyName, sepa ? 70 : 140) },
          },
          PmtInf: {
            PmtInfId: `${msgId}-1`,
            PmtMtd: "TRF",
            NbOfTxs: String(rows.length),
            CtrlSum: total,
            ...(sepa ? { PmtTpInf: { SvcLvl: { Cd: "SEPA" } } } : {}),
            ReqdExctnDt: { Dt: settings.executionDate },
            Dbtr: {
              Nm: text(settings.debtor.name, sepa ? 70 : 140),
              // Structured, as from November 2026: the town (Max35Text) and the country, in the schema's order.
              ...(address ? { PstlAdr: { TwnNm: text(address.town, 35), Ctry: address.country } } : {}),
            },
            DbtrAcct: { Id: { IBAN: electronicFormatIBAN(settings.debtor.iban) } },
            DbtrAgt: { FinInstnId: { BICFI: settings.debtor.bic } },
            ChrgBr: sepa ? "SLEV" : "SHAR",
            CdtTrfTxInf: transfers,
          },
        },
      },
    };
    return writtenFile(rows, {
      fileName: pain001FileName(settings.baseName, currency),
      mediaType: "application/xml",
      part: 1,
      partCount: 1,
      currency,
      content: builder.build(document) as string,
    });
  });
}
