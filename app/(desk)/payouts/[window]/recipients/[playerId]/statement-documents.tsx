import { buttonClassName } from "@/app/_components/ui/button-styles";
import type { PayoutStatement } from "@/lib/payouts/ledger";
import { isStatementIssued, statementDocumentHref } from "@/lib/statements/hrefs";

/** Download links for the recipient's statement document (finance; batches approved or paid). */
export function StatementDocuments({ statement }: { statement: PayoutStatement }) {
  if (!isStatementIssued(statement.batchStatus)) return null;
  return (
    <>
      <a className={buttonClassName({ size: "sm" })} href={statementDocumentHref(statement.id, "pdf")} download>
        Download PDF
      </a>
      <a className={buttonClassName({ size: "sm" })} href={statementDocumentHref(statement.id, "csv")} download>
        Download CSV
      </a>
    </>
  );
}
