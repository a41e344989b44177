import { XMLParser, XMLValidator } from "fast-xml-parser";
import { z } from "zod";
import {
  feeOf,
  type PaymentOutcome,
  type PaymentResult,
  resultAmountSchema,
  resultCurrencySchema,
  resultTransactionIdSchema,
  type UnreadableRow,
} from "./results";

/**
 * ISO 20022 customer payment status report, pain.002 (CstmrPmtStsRpt; versions .001.03 to .001.10 share the parts
 * read here), the bank's answer to a pain.001:
 *
 * - OrgnlGrpInfAndSts: OrgnlMsgId, GrpSts and its StsRsnInf: the status of the whole message. A report may stop
 *   here (e.g. the whole file RJCT for a wrong CtrlSum): then `results` is empty and `group.status` says it all.
 * - OrgnlPmtInfAndSts: PmtInfSts per payment information block, applying to its transactions that carry no
 *   TxSts of their own (and likewise GrpSts to blocks without PmtInfSts).
 * - TxInfAndSts: OrgnlEndToEndId (our reference), TxSts, StsRsnInf/Rsn/Cd (or Prtry) and AddtlInf as the reason,
 *   AcctSvcrRef as the bank's transaction id, OrgnlTxRef/Amt/InstdAmt (amount, Ccy), ChrgsInf/Amt as the fee.
 * - Status codes (ISO 20022 ExternalPaymentTransactionStatus1Code): ACSC, ACCC → paid (settled on the debtor's,
 *   or credited to the creditor's account); RCVD, PDNG, ACTC, ACCP, ACSP, ACWC, ACWP, ACFC, PART, PATC → pending;
 *   RJCT, CANC → rejected. pain.002 has no "returned": a return after settlement comes as a camt.054 or a
 *   pacs.004, not read here.
 * Namespaces and prefixes are ignored; a byte-order mark is tolerated; a transaction it cannot read is listed in
 * `unreadable` with its position (the n-th TxInfAndSts in the file) and why.
 */
const STATUS: Record<string, PaymentOutcome> = {
  ACSC: "paid",
  ACCC: "paid",
  RCVD: "pending",
  PDNG: "pending",
  ACTC: "pending",
  ACCP: "pending",
  ACSP: "pending",
  ACWC: "pending",
  ACWP: "pending",
  ACFC: "pending",
  PART: "pending",
  PATC: "pending",
  RJCT: "rejected",
  CANC: "rejected",
};

export type StatusBlock = { id: string | null; status: string | null; reasons: string[] };

export type Pain002Readout = {
  group: StatusBlock;
  paymentInformation: StatusBlock[];
  results: PaymentResult[];
  unreadable: UnreadableRow[];
};

const ARRAYS = new Set(["OrgnlGrpInfAndSts", "OrgnlPmtInfAndSts", "TxInfAndSts", "StsRsnInf", "AddtlInf", "ChrgsInf"]);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ARRAYS.has(name),
});

type Node = Record<string, unknown>;
const node = (value: unknown): Node => (value && typeof value === "object" ? (value as Node) : {});
const list = (value: unknown): Node[] =>
  Array.isArray(value) ? value.map(node) : value === undefined ? [] : [node(value)];
const text = (value: unknown): string | null => {
  if (typeof value === "string") return value.trim() === "" ? null : value.trim();
  if (value && typeof value === "object" && typeof (value as Node)["#text"] === "string")
    return text((value as Node)["#text"]);
  return null;
};

/** The reasons a block gives; a StsRsnInf with neither code nor text (only its originator, say) gives none. */
function reasons(block: Node): string[] {
  return list(block.StsRsnInf)
    .map((info) => {
      const rsn = node(info.Rsn);
      const code = text(rsn.Cd) ?? text(rsn.Prtry);
      const extra = (Array.isArray(info.AddtlInf) ? info.AddtlInf : []).map(text).filter((v) => v !== null);
      const more = extra.join(" ").trim();
      return [code, more].filter(Boolean).join(": ");
    })
    .filter((reason) => reason !== "");
}

const referenceSchema = z.string().min(1).max(35);

/**
 * ISO 20022 status reasons that reject a payment, or a file, as a duplicate of one the bank already has (AM05
 * duplication, DU01–DU05 duplicate ids, DUPL): an upload made twice. The first one's payment stands: nothing of it is
 * owed again.
 */
export function isDuplicateReason(reason: string): boolean {
  return /^(AM05|DU0[1-5]|DUPL)\b/i.test(reason);
}

export function readPain002(input: string): Pain002Readout {
  const xml = input.replace(/^\uFEFF/, "");
  const empty: Pain002Readout = {
    group: { id: null, status: null, reasons: [] },
    paymentInformation: [],
    results: [],
    unreadable: [],
  };
  // A bank's report declares no document type: one that does (entities, external or not) is not read at all.
  if (/<!DOCTYPE/i.test(xml))
    return { ...empty, unreadable: [{ line: 0, reason: "not a pain.002 status report (it declares a DOCTYPE)" }] };
  // XML 1.0 allows no control character but tab, LF and CR anywhere; the validator lets one through (and a NUL then
  // fails the database's text).
  const control = controlCharacterAt(xml);
  if (control >= 0) {
    const line = xml.slice(0, control).split("\n").length;
    const code = `U+${xml.charCodeAt(control).toString(16).toUpperCase().padStart(4, "0")}`;
    return { ...empty, unreadable: [{ line, reason: `not well-formed XML: a control character (${code})` }] };
  }
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    return { ...empty, unreadable: [{ line: valid.err.line, reason: `not well-formed XML: ${valid.err.msg}` }] };
  let parsed: unknown;
  try {
    parsed = parser.parse(xml);
  } catch (error) {
    return {
      ...empty,
      unreadable: [{ line: 0, reason: `unreadable XML (${(error as Error).message.split("\n")[0]})` }],
    };
  }
  const report = node(node(parsed).Document).CstmrPmtStsRpt;
  if (!report)
    return { ...empty, unreadable: [{ line: 0, reason: "not a pain.002 status report (no CstmrPmtStsRpt)" }] };
  const groupNode = list(node(report).OrgnlGrpInfAndSts)[0] ?? {};
  const group: StatusBlock = {
    id: text(groupNode.OrgnlMsgId),
    status: text(groupNode.GrpSts),
    reasons: reasons(groupNode),
  };
  const paymentInformation: StatusBlock[] = [];
  const results: PaymentResult[] = [];
  const unreadable: UnreadableRow[] = [];
  let position = 0;
  for (const block of list(node(report).OrgnlPmtInfAndSts)) {
    const info: StatusBlock = { id: text(block.OrgnlPmtInfId), status: text(block.PmtInfSts), reasons: reasons(block) };
    paymentInformation.push(info);
    for (const tx of list(block.TxInfAndSts)) {
      position += 1;
      const reference = referenceSchema.safeParse(text(tx.OrgnlEndToEndId) ?? "");
      if (!reference.success) {
        unreadable.push({ line: position, reason: "has no OrgnlEndToEndId of 1-35 characters" });
        continue;
      }
      const raw = text(tx.TxSts) ?? info.status ?? group.status;
      const outcome = raw ? STATUS[raw.toUpperCase()] : undefined;
      if (!raw || !outcome) {
        unreadable.push({
          line: position,
          reason: raw ? `status ${JSON.stringify(raw)} is not one this reader knows` : "has no status",
        });
        continue;
      }
      const instructed = node(node(node(tx.OrgnlTxRef).Amt).InstdAmt);
      const amount = resultAmountSchema.safeParse(text(node(node(tx.OrgnlTxRef).Amt).InstdAmt) ?? "");
      const fee = resultAmountSchema.safeParse(text(list(tx.ChrgsInf)[0]?.Amt) ?? "");
      const ccy = resultCurrencySchema.safeParse(typeof instructed["@Ccy"] === "string" ? instructed["@Ccy"] : "");
      const transactionId = resultTransactionIdSchema.safeParse(text(tx.AcctSvcrRef) ?? "");
      if (!amount.success || !fee.success || !ccy.success || !transactionId.success) {
        unreadable.push({
          line: position,
          reason: !amount.success
            ? "amount is not an amount"
            : !fee.success
              ? "fee is not an amount"
              : !ccy.success
                ? "amount's currency is not a currency code"
                : "AcctSvcrRef (the bank's transaction id) is over 255 characters",
        });
        continue;
      }
      const txReasons = reasons(tx);
      if (outcome === "rejected" && txReasons.some(isDuplicateReason)) {
        unreadable.push({
          line: position,
          reason:
            `rejected as a duplicate (${txReasons.join("; ")}): the bank reports having this payment already, from ` +
            "an earlier upload; not read as owed again: import the earlier upload's report, or record its outcome by " +
            "hand once the bank confirms it",
        });
        continue;
      }
      results.push({
        reference: reference.data,
        outcome,
        providerTransactionId: transactionId.data,
        amount: amount.data,
        currency: ccy.data,
        fee: feeOf(fee.data),
        reason: txReasons.length > 0 ? txReasons.join("; ") : null,
        rawStatus: raw,
      });
    }
  }
  return { group, paymentInformation, results, unreadable };
}

/** Where the text holds a C0 control character XML 1.0 does not allow (any but tab, LF and CR), or -1. */
function controlCharacterAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
  }
  return -1;
}
