import { countOf, formatCount } from "@/lib/format";
import { Badge } from "@/app/_components/ui/badge";
import { Banner } from "@/app/_components/ui/banner";
import { Card } from "@/app/_components/ui/card";
import { DateTime } from "@/app/_components/ui/date-time";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Money } from "@/app/_components/ui/money";
import { Stat, StatGroup } from "@/app/_components/ui/stat";
import { RowTh, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import type { Db } from "@/db";
import { listRecentPulls, listSnapshotDrift, listSnapshotWindows, type SnapshotHeader } from "@/db/queries/snapshots";
import { sameWindow } from "@/lib/time";
import { windowLabel } from "@/lib/payouts/window-key";
import { toProgressView } from "./progress-view";
import { SnapshotProgress } from "./snapshot-progress";

/**
 * The snapshot part of the Payouts page: pulls under way (live), the latest version of each window with its flags
 * (stale, drift), and the totals of the newest one. Every version stays stored; this shows the latest of each.
 */

/** A drifted figure as stored (normalised: "0.9"), an amount with its cents ("0.90"); nothing is rounded. */
function driftValue(field: string, value: string | null): string {
  if (value === null) return "none";
  if (!field.endsWith("_usd") || !/^-?\d+(\.\d)?$/.test(value)) return value;
  const [whole, cents = ""] = value.split(".");
  return `${whole}.${cents.padEnd(2, "0")}`;
}

/** The snapshot's state as badges; `inRow` in a table's row, where they take no focus (the header's do). */
export function SnapshotFlags({ snapshot, inRow = false }: { snapshot: SnapshotHeader; inRow?: boolean }) {
  const focusable = !inRow;
  return (
    <span className="flex flex-wrap gap-1">
      {snapshot.drift.status === "drift" ? (
        <Badge
          tone="danger"
          title="A figure differs from the previous version of this closed window"
          focusable={focusable}
        >
          Drift: {formatCount(snapshot.drift.count)}
        </Badge>
      ) : null}
      {snapshot.drift.status === "reproduced" ? <Badge tone="success">Reproduced</Badge> : null}
      {snapshot.stale ? (
        <Badge tone="warning" title={`Changed at the service: ${snapshot.stale.reason}`} focusable={focusable}>
          Stale
        </Badge>
      ) : null}
      {snapshot.windowClosed ? null : snapshot.window.endMs <= Date.now() ? (
        <Badge
          tone="warning"
          title="Read before the window ended: take it again for the whole window"
          focusable={focusable}
        >
          Read before its end
        </Badge>
      ) : (
        <Badge tone="info">Window open</Badge>
      )}
    </span>
  );
}

export async function SnapshotSection({
  db,
  gameId,
  gameName,
  canTake,
}: {
  db: Db;
  gameId: string;
  gameName: string;
  canTake: boolean;
}) {
  const [pulls, windows] = await Promise.all([
    listRecentPulls(db, { gameId, limit: 6 }),
    listSnapshotWindows(db, { gameId, limit: 24 }),
  ]);
  const active = pulls.filter((p) => p.status === "queued" || p.status === "running" || p.status === "retrying");
  // Failures from the last day stay visible so nobody wonders where a requested snapshot went, unless a later pull of
  // the same window has published since.
  const publishedSince = (p: (typeof pulls)[number]) =>
    windows.some(
      (w) =>
        sameWindow(w.window, p.window) && p.finishedAt !== null && w.publishedAt.getTime() > p.finishedAt.getTime(),
    );
  const failed = pulls
    .filter((p) => p.status === "failed" && p.finishedAt && Date.now() - p.finishedAt.getTime() < 86_400_000)
    .filter((p) => !publishedSince(p))
    .slice(0, 3);
  const latest = windows[0];
  // Every listed window whose latest version drifted or is stale, not only the newest window (usually the running
  // month, which can neither drift nor be paid yet).
  const drifted = windows.filter((w) => w.drift.status === "drift").slice(0, 3);
  const driftOf = await Promise.all(drifted.map((w) => listSnapshotDrift(db, { gameId, snapshotId: w.id, limit: 10 })));
  const stale = windows.filter((w) => w.stale).slice(0, 5);

  return (
    <div className="flex flex-col gap-5">
      {active.length + failed.length > 0 ? (
        <section aria-labelledby="pulls-heading" className="flex flex-col gap-2">
          <h2 id="pulls-heading" className="text-sm font-semibold text-ink">
            Snapshots being taken
          </h2>
          {[...active, ...failed].map((pull) => (
            <SnapshotProgress key={`${pull.id}-${pull.status}`} initial={toProgressView(pull)} />
          ))}
        </section>
      ) : null}

      {!latest && active.length > 0 ? null : !latest ? (
        <EmptyState title="No snapshot yet">
          {canTake
            ? `Take a snapshot of a month for ${gameName} to review what each recipient earned.`
            : "Finance takes snapshots of each month; they will show here."}
        </EmptyState>
      ) : (
        <>
          {drifted.map((w, index) => (
            <Banner key={w.id} tone="danger" title={`Drift: ${windowLabel(w.window)} no longer reproduces`}>
              <p>
                Version {w.version} differs from version {w.version - 1} of this closed window in{" "}
                {formatCount(w.drift.count)} figure{w.drift.count === 1 ? "" : "s"}. The service promises a closed
                window reproduces: raise it with the service before paying from either version.
              </p>
              <ul className="mt-1 list-disc pl-5 font-mono text-xs">
                {(driftOf[index] ?? []).map((d) => (
                  <li key={`${d.entity}-${d.entityKey}-${d.field}`}>
                    {d.entity} {d.entityKey} {d.field}: {driftValue(d.field, d.previousValue)} →{" "}
                    {driftValue(d.field, d.currentValue)}
                  </li>
                ))}
              </ul>
            </Banner>
          ))}
          {stale.map((w) =>
            w.stale ? (
              <Banner
                key={w.id}
                tone="warning"
                title={`${windowLabel(w.window)} changed at the service after its snapshot`}
              >
                Changes reported since <DateTime value={w.stale.since.toISOString()} /> (
                {w.stale.marks > 0 ? "latest: " : ""}
                {w.stale.reason}). Take a new snapshot before paying from it.
              </Banner>
            ) : null,
          )}
          <Card
            title={`Latest snapshot: ${windowLabel(latest.window)}`}
            description={
              <>
                Version {latest.version}, published <DateTime value={latest.publishedAt.toISOString()} />
                {latest.takenByEmail ? ` by ${latest.takenByEmail}` : ""}.{" "}
                {latest.builtFrom === "split" ? `Built from ${latest.subWindowCount} sub-windows. ` : ""}
                {countOf(latest.pageCount, "page")}, {countOf(latest.rateLimited, "rate-limited answer")}.
              </>
            }
            actions={<SnapshotFlags snapshot={latest} />}
          >
            <StatGroup label="Totals of the window">
              <Stat label="Net attributed" value={<Money value={latest.totals.netAttributedUsd} currency="USD" />} />
              <Stat
                label="Gross attributed"
                value={<Money value={latest.totals.grossAttributedUsd} currency="USD" />}
              />
              <Stat
                label="Reversed attributed"
                value={<Money value={latest.totals.reversedAttributedUsd} currency="USD" />}
                hint={`${formatCount(latest.totals.refundEventsInWindow)} refund events`}
              />
              <Stat label="Recipients" value={formatCount(latest.totals.recipientCount)} />
              <Stat
                label="Renewals settled"
                value={formatCount(latest.totals.renewalsSettled)}
                hint={`${formatCount(latest.totals.renewalsWithoutAttribution)} without attribution`}
              />
              <Stat label="Settled gross" value={<Money value={latest.totals.settledGrossUsd} currency="USD" />} />
            </StatGroup>
          </Card>
          <section aria-labelledby="windows-heading">
            <h2 id="windows-heading" className="mb-2 text-sm font-semibold text-ink">
              Snapshots by window
            </h2>
            <SimpleTable
              caption="Latest version of each snapshotted window"
              head={
                <>
                  <Th>Window</Th>
                  <Th>Version</Th>
                  <Th align="right">Net attributed (USD)</Th>
                  <Th align="right">Recipients</Th>
                  <Th align="right">Lines</Th>
                  <Th>Published</Th>
                  <Th>Flags</Th>
                </>
              }
            >
              {windows.map((s) => (
                <Tr key={s.id}>
                  <RowTh className="font-medium text-ink">{windowLabel(s.window)}</RowTh>
                  <Td className="tabular-nums">
                    v{s.version}
                    {s.versions > 1 ? <span className="text-ink-muted"> of {s.versions}</span> : null}
                  </Td>
                  <Td align="right">
                    <Money value={s.totals.netAttributedUsd} />
                  </Td>
                  <Td align="right" className="tabular-nums">
                    {formatCount(s.totals.recipientCount)}
                  </Td>
                  <Td align="right" className="tabular-nums">
                    {formatCount(s.lineCount)}
                  </Td>
                  <Td>
                    <DateTime value={s.publishedAt.toISOString()} focusable={false} />
                  </Td>
                  <Td>
                    <SnapshotFlags snapshot={s} inRow />
                  </Td>
                </Tr>
              ))}
            </SimpleTable>
          </section>
        </>
      )}
    </div>
  );
}
