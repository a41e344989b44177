/** Where a statement's documents are downloaded (app/api/statements/[statementId]/[format]/route.ts). */
export const STATEMENT_FORMATS = ["pdf", "csv"] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

export function statementDocumentHref(statementId: string, format: StatementFormat): string {
  return `/api/statements/${encodeURIComponent(statementId)}/${format}`;
}
