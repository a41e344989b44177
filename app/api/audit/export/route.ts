// GET /api/audit/export – the audit log as CSV, with the audit page's filters, for auditors
import { auditQueryOf, parseAuditFilter } from "@/app/(desk)/audit/filters";
import { getDb } from "@/db";
import { startAuditLogExport } from "@/lib/exports/audit-log";
import { csvDownloadResponse, readBomQuery } from "@/lib/exports/http";
import { AppError } from "@/lib/errors";
import { defineRoute } from "@/lib/routes";

// The same role as the audit page: whoever may read the log may take it away, and the download is audited.
export const GET = defineRoute("viewer", async (request, { user }) => {
  const url = new URL(request.url);
  const filter = parseAuditFilter(Object.fromEntries(url.searchParams));
  // The page drops a time it cannot read (and says so); a download would then hold far more than was asked for.
  if (filter.from.invalid || filter.to.invalid)
    throw new AppError("INVALID_INPUT", "A time filter could not be read: correct it on the audit page first.");
  const started = await startAuditLogExport(
    getDb(),
    {
      filter: auditQueryOf(filter),
      bom: readBomQuery(url.searchParams),
    },
    { actor: { id: user.id, email: user.email }, via: "web" },
  );
  return csvDownloadResponse(started, request.signal);
});
