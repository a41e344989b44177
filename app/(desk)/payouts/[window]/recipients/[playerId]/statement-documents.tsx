import { buttonClassName } from "@/app/_components/ui/button-styles";
import type { PayoutStatement } from "@/lib/payouts/ledger";
import { downloadHref } from "@/lib/games/download-game";
import { isStatementIssued, statementDocumentHref } from "@/lib/statements/hrefs";

/** Download links for the recipient's statement document (finance; batches approved or paid). */
export function StatementDocuments({ statement, gameId }: { statement: PayoutStatement; gameId: string }) {
  if (!isStatementIssued(statement.batchStatus)) return null;
  return (
    <>
      <a
        className={buttonClassName({ size: "sm" })}
        href={downloadHref(statementDocumentHref(statement.id, "pdf"), gameId)}
        download
      >
        Download PDF
      </a>
      <a
        className={buttonClassName({ size: "sm" })}
        href={downloadHref(statementDocumentHref(statement.id, "csv"), gameId)}
        download
      >
        Download CSV
      </a>
    </>
  );
}
