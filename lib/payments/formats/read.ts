import { AppError } from "@/lib/errors";
import type { ResultFormat } from "../schemas";
import { readGenericResults } from "./generic";
import { readPain002 } from "./pain002";
import { readPaypalResults } from "./paypal";
import type { ResultsReadout } from "./results";
import { readWiseResults } from "./wise";

/** A provider's results file read in its format; a report that says nothing of any payment is refused here. */
export function readResults(format: ResultFormat, text: string): ResultsReadout {
  switch (format) {
    case "paypal":
      return readPaypalResults(text);
    case "wise":
      return readWiseResults(text);
    case "generic":
      return readGenericResults(text);
    case "pain002": {
      const r = readPain002(text);
      if (r.results.length === 0 && r.unreadable.length === 0) refuseWithoutTransactions(r);
      return { results: r.results, unreadable: r.unreadable };
    }
  }
}

/**
 * A status report that names no transaction speaks of the whole file (or its blocks) only: a rejection of it (a wrong
 * control sum, no funds) paid nothing, and accepting it as "nothing to import" would leave its statements in payment
 * with nobody told.
 */
function refuseWithoutTransactions(r: ReturnType<typeof readPain002>): never {
  const blocks = [r.group, ...r.paymentInformation].filter((b) => b.status !== null);
  const said = blocks.map((b) => `${b.status}${b.reasons.length > 0 ? ` (${b.reasons.join(", ")})` : ""}`).join("; ");
  if (blocks.some((b) => b.status === "RJCT"))
    throw new AppError(
      "INVALID_INPUT",
      `The bank rejected the whole payment file (${said}) and lists no transaction: nothing was paid. Cancel the ` +
        "file here (its statements are owed again), correct the cause and make a new one.",
    );
  if (blocks.some((b) => b.status === "ACSC" || b.status === "ACCC"))
    throw new AppError(
      "INVALID_INPUT",
      `The bank reports the whole payment file settled (${said}) without listing its transactions: nothing is ` +
        "applied from it. Ask the bank for the report with each transaction's status; a bank that gives none: " +
        "import the payments as generic results (reference and outcome paid for each of the file's references).",
    );
  throw new AppError(
    "INVALID_INPUT",
    `This status report lists no transaction${said ? ` (the file's status: ${said})` : ""}: nothing to import yet. ` +
      "Import the report that gives each payment's status.",
  );
}
