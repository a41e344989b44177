import "server-only";
import type { SendMailOptions } from "nodemailer";
import { Money, money } from "@/core/money";
import { windowUtcText } from "@/core/time";
import { formatUsdText } from "@/lib/format";
import { convertedText, REPORTED_AGAIN, type StatementDocument } from "./model";

/** The email that carries a statement: the figures in plain words, the PDF attached, and the signed link. */
export function statementEmail(input: {
  doc: StatementDocument;
  pdf: Buffer;
  from: string;
  to: string;
  link: string;
  linkDays: number;
  /** The same on every attempt of one send (lib/mail/transport.ts sendMessageId). */
  messageId: string;
}): SendMailOptions {
  const { doc } = input;
  const f = doc.figures;
  const month = windowUtcText(doc.window.start, doc.window.end);
  const payment = paymentSentence(doc.payment, f.payableUsd);
  const text = [
    `Hello ${doc.recipient.name ?? `player #${doc.recipient.playerId}`},`,
    "",
    `Your revenue share statement ${doc.label} from ${doc.issuer.name} for ${month} is attached.`,
    "",
    `Carried in: ${formatUsdText(f.carriedInUsd)}`,
    `Renewals (${doc.renewals.count}): ${formatUsdText(f.grossAttributedUsd)}`,
    `Reversals deducted (${doc.reversals.length}): ${formatUsdText(f.reversedAttributedUsd)}`,
    ...(money(f.reversedBeforeUsd).isZero()
      ? []
      : [`Of the reversals listed, ${REPORTED_AGAIN}: ${formatUsdText(f.reversedBeforeUsd)}`]),
    `Net: ${formatUsdText(f.netAttributedUsd)}`,
    `Payable: ${formatUsdText(f.payableUsd)}`,
    `Carried out: ${formatUsdText(f.carriedOutUsd)}`,
    "",
    payment,
    "",
    `You can also download this statement for ${input.linkDays} days here (no account needed):`,
    input.link,
    "",
    doc.issuer.name,
    doc.issuer.address,
  ].join("\n");
  return {
    from: input.from,
    to: input.to,
    messageId: input.messageId,
    subject: `Statement ${doc.label} from ${doc.issuer.name}`,
    text,
    attachments: [{ filename: `${doc.label}.pdf`, content: input.pdf, contentType: "application/pdf" }],
  };
}

/** What happened to the statement's payment, in one sentence of the email. */
function paymentSentence(p: StatementDocument["payment"], payableUsd: string): string {
  switch (p.state) {
    case "paid":
      return (
        `We paid you ${formatUsdText(payableUsd)}${p.converted ? `, sent as ${convertedText(p.converted)},` : ""} ` +
        `on ${p.paidOn ?? "—"} by ${p.method ?? "—"} (account ${p.account}, reference ${p.reference ?? "—"}).` +
        (p.providerNote ? ` ${p.providerNote}` : "")
      );
    case "returned":
      if (p.undone)
        return (
          `The payment of ${formatUsdText(p.returnedUsd)} marked paid on ${p.paidOn ?? "—"} ` +
          `(reference ${p.reference ?? "—"}) was marked by mistake and never sent: ${p.reason}. ` +
          "It is owed to you and will be paid."
        );
      return (
        `Our payment of ${formatUsdText(p.returnedUsd)} on ${p.paidOn ?? "—"} by ${p.method ?? "—"} ` +
        `(reference ${p.reference ?? "—"}) came back on ${p.returnedOn}: ${p.reason}. ` +
        "It is owed to you again and will be paid again."
      );
    case "held":
      // Under the minimum there is no payment to hold yet.
      return new Money(payableUsd).isZero()
        ? `Nothing is payable yet, and your statement is held: ${p.reason}.`
        : `Your payment of ${formatUsdText(payableUsd)} is held: ${p.reason}.`;
    case "carried":
      return `Nothing is paid this time: ${p.reason}.`;
    default:
      return `Payable: ${formatUsdText(payableUsd)} (${p.reason}).`;
  }
}
