import { AppError } from "@/lib/errors";
import { countOf } from "@/lib/format";
import type { ResultFormat } from "../schemas";
import { readGenericResults } from "./generic";
import { isDuplicateReason, readPain002 } from "./pain002";
import { readPaypalResults } from "./paypal";
import type { ResultsReadout } from "./results";
import { readWiseResults } from "./wise";

/** A status report that names no transaction: what it says of the whole file, judged against the batch's files. */
export type WholeFileReport = ReturnType<typeof readPain002>;

/** A SEPA file of the batch, as a status report names it (its MsgId). */
export type SepaFileOfBatch = { fileName: string; messageId: string | null; status: string };

/**
 * A provider's results file read in its format. A status report that says nothing of any payment comes back as
 * `wholeFileReport` with no results: refuseReportOfFile says what it means for the file it names.
 */
export function readResults(
  format: ResultFormat,
  text: string,
): ResultsReadout & { wholeFileReport?: WholeFileReport } {
  switch (format) {
    case "paypal":
      return readPaypalResults(text);
    case "wise":
      return readWiseResults(text);
    case "generic":
      return readGenericResults(text);
    case "pain002": {
      const r = readPain002(text);
      // A file rejected whole paid nothing, whichever of its transactions the report lists (often only the cause).
      if ((r.results.length === 0 && r.unreadable.length === 0) || rejectsWhole(r))
        return { results: [], unreadable: [], wholeFileReport: r };
      return { results: r.results, unreadable: r.unreadable };
    }
  }
}

/**
 * The whole file rejected: its group status says so, or every block of it does. A partly accepted report (PART: some
 * blocks rejected, others settled) is read payment by payment.
 */
function rejectsWhole(r: WholeFileReport): boolean {
  if (r.group.status === "RJCT") return true;
  return r.paymentInformation.length > 0 && r.paymentInformation.every((b) => b.status === "RJCT");
}

/**
 * A status report that names no transaction speaks of the whole file (or its blocks) only: a rejection of it (a wrong
 * control sum, no funds) paid nothing, and accepting it as "nothing to import" would leave its statements in payment
 * with nobody told. Which file it speaks of is its OrgnlMsgId: a report of another batch's file (or of none of the
 * desk's) is refused as such, never read as a reason to cancel one of this batch's files.
 */
export function refuseReportOfFile(r: WholeFileReport, files: readonly SepaFileOfBatch[]): never {
  const blocks = [r.group, ...r.paymentInformation].filter((b) => b.status !== null);
  const said = blocks.map((b) => `${b.status}${b.reasons.length > 0 ? ` (${b.reasons.join(", ")})` : ""}`).join("; ");
  const named = r.group.id;
  const file = named === null ? undefined : files.find((f) => f.messageId === named);
  if (named !== null && !file) {
    const ours = files.map((f) => f.fileName).join(", ");
    throw new AppError(
      "INVALID_INPUT",
      `This status report answers message ${named}, which is not a SEPA file of this batch ` +
        `(${ours ? `its SEPA files: ${ours}` : "it has none"}): nothing is imported. Import it on the batch whose ` +
        "file it answers.",
    );
  }
  const which = file ? `payment file ${file.fileName}` : "payment file (the report does not name it: no OrgnlMsgId)";
  if (blocks.some((b) => b.status === "RJCT")) {
    const listed = r.results.length + r.unreadable.length;
    const lists = listed === 0 ? "lists no transaction" : `lists ${countOf(listed, "transaction")} of it`;
    // Refused as a duplicate: the bank has the file from an earlier upload, whose payments stand.
    if (blocks.some((b) => b.status === "RJCT" && b.reasons.some(isDuplicateReason)))
      throw new AppError(
        "INVALID_INPUT",
        `The bank rejected the ${which} as a duplicate (${said}): it reports having the file already, from an ` +
          "earlier upload, whose payments stand. Nothing is imported. Do not cancel the file or make a new one: " +
          "import the report of the first upload (or ask the bank what it made of it).",
      );
    if (file?.status === "cancelled")
      throw new AppError(
        "INVALID_INPUT",
        `The bank rejected the whole ${which} (${said}), which is cancelled here already: nothing to do.`,
      );
    if (file?.status === "completed")
      throw new AppError(
        "INVALID_INPUT",
        `The bank reports the whole ${which} rejected (${said}), but every payment in it already has its result ` +
          "here: nothing is changed. Ask the bank which is right; a payment it did not make is recorded as returned " +
          "on its statement, ticking “It was never sent”.",
      );
    throw new AppError(
      "INVALID_INPUT",
      `The bank rejected the whole ${which} (${said}) and ${lists}: nothing was paid. Cancel ` +
        `${file ? "that file" : "the file it answers"} here (its statements are owed again), correct the cause and ` +
        "make a new one.",
    );
  }
  if (file?.status === "cancelled" && blocks.some((b) => b.status === "ACSC" || b.status === "ACCC"))
    throw new AppError(
      "INVALID_INPUT",
      `The bank reports the whole ${which} settled (${said}), but it was cancelled here: its statements were made ` +
        "payable again and may have been paid since, so its recipients may be paid twice. Nothing is applied: check " +
        "each statement of the file, and record what the bank paid as paid by hand with its reference.",
    );
  if (blocks.some((b) => b.status === "ACSC" || b.status === "ACCC"))
    throw new AppError(
      "INVALID_INPUT",
      `The bank reports the whole ${which} settled (${said}) without listing its transactions: nothing is ` +
        "applied from it. Ask the bank for the report with each transaction's status; a bank that gives none: " +
        "import the payments as generic results (reference and outcome paid for each of the file's references).",
    );
  throw new AppError(
    "INVALID_INPUT",
    `This status report lists no transaction${said ? ` (the file's status: ${said})` : ""}: nothing to import yet. ` +
      "Import the report that gives each payment's status.",
  );
}
