import { buttonClassName } from "@/app/_components/ui/button-styles";
import { statementDocumentHref } from "@/lib/statements/hrefs";

/** Download links for the recipient's statement document (finance; batches approved or paid). */
export function StatementDocuments({ statementId }: { statementId: string }) {
  return (
    <>
      <a className={buttonClassName({ size: "sm" })} href={statementDocumentHref(statementId, "pdf")} download>
        Download PDF
      </a>
      <a className={buttonClassName({ size: "sm" })} href={statementDocumentHref(statementId, "csv")} download>
        Download CSV
      </a>
    </>
  );
}
