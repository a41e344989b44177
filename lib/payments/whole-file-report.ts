import "server-only";
import type { Db } from "@/db";
import { listPaymentFiles } from "@/db/queries/payment-files";
import { pain001MessageIdOf } from "./formats/pain001";
import { refuseReportOfFile, type WholeFileReport } from "./formats/read";

/** Refuses a status report that names no transaction, saying what it means for the batch's SEPA file it names. */
export async function refuseWholeFileReport(
  db: Db,
  params: { gameId: string; batchId: string },
  report: WholeFileReport,
): Promise<never> {
  const files = await listPaymentFiles(db, params);
  return refuseReportOfFile(
    report,
    files
      .filter((f) => f.method === "pain001")
      .map((f) => ({ fileName: f.fileName, messageId: pain001MessageIdOf(f.fileName), status: f.status })),
  );
}
