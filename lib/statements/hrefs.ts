/** Where a statement's documents are downloaded (app/api/statements/[statementId]/[format]/route.ts). */
export const STATEMENT_FORMATS = ["pdf", "csv"] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

export function statementDocumentHref(statementId: string, format: StatementFormat): string {
  return `/api/statements/${encodeURIComponent(statementId)}/${format}`;
}

/** A statement has documents (and may be emailed) once its batch is approved: its figures are final. */
export function isStatementIssued(batchStatus: string): boolean {
  return batchStatus === "approved" || batchStatus === "paid";
}
