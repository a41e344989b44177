// GET /api/audit/export – the audit log as CSV, with the audit page's filters, for auditors
import { auditQueryOf, parseAuditFilter } from "@/app/(desk)/audit/filters";
import { getDb } from "@/db";
import { startAuditLogExport } from "@/lib/exports/audit-log";
import { csvDownloadResponse } from "@/lib/exports/http";
import { defineRoute } from "@/lib/routes";

// The same role as the audit page: whoever may read the log may take it away, and the download is audited.
export const GET = defineRoute("viewer", async (request, { user }) => {
  const url = new URL(request.url);
  const started = await startAuditLogExport(
    getDb(),
    {
      filter: auditQueryOf(parseAuditFilter(Object.fromEntries(url.searchParams))),
      bom: url.searchParams.get("bom") === "1",
    },
    { actor: { id: user.id, email: user.email }, via: "web" },
  );
  return csvDownloadResponse(started);
});
