import type { Metadata } from "next";
import { DateTime } from "@/app/_components/ui/date-time";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { PageHeader } from "@/app/_components/ui/page-header";
import { getDb } from "@/db";
import { listAuditEntries } from "@/db/queries/audit";
import { requirePageRole } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Audit log" };

export default async function AuditPage() {
  await requirePageRole("viewer");
  const entries = await listAuditEntries(getDb(), { limit: 200 });
  return (
    <>
      <PageHeader title="Audit log" description="Every change made in Payout Desk, newest first. Entries cannot be edited or deleted." />
      {entries.length === 0 ? (
        <EmptyState title="Nothing recorded yet">Changes to users, games, refunds and payouts will show here.</EmptyState>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-line bg-surface">
          <table className="min-w-full text-sm">
            <caption className="sr-only">Audit log entries</caption>
            <thead className="bg-subtle text-left text-ink-muted">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">Time</th>
                <th scope="col" className="px-3 py-2 font-medium">Actor</th>
                <th scope="col" className="px-3 py-2 font-medium">Action</th>
                <th scope="col" className="px-3 py-2 font-medium">Game</th>
                <th scope="col" className="px-3 py-2 font-medium">Target</th>
                <th scope="col" className="px-3 py-2 font-medium">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} className="border-t border-line">
                  <td className="whitespace-nowrap px-3 py-2">
                    <DateTime value={e.at.toISOString()} />
                  </td>
                  <td className="px-3 py-2">{e.actorEmail ?? "system"}</td>
                  <td className="px-3 py-2 font-mono text-xs">{e.action}</td>
                  <td className="px-3 py-2 font-mono text-xs">{e.gameId ?? ""}</td>
                  <td className="px-3 py-2">{e.target ?? ""}</td>
                  <td className="px-3 py-2">{e.outcome}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
