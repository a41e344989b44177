import { BarChart } from "@/app/_components/charts/bar-chart";
import { Badge } from "@/app/_components/ui/badge";
import { Card } from "@/app/_components/ui/card";
import { Money } from "@/app/_components/ui/money";
import { TextLink } from "@/app/_components/ui/text-link";
import type { Db } from "@/db";
import { listTopRecipients } from "@/db/queries/payouts";
import { countOf, formatCount } from "@/lib/format";
import { listWindowOverview, type WindowOverviewRow, type WindowSnapshotState } from "@/lib/payouts/overview";
import { windowHref, windowLabel } from "@/lib/payouts/window-key";
import type { Tone } from "@/app/_components/ui/tone";
import { BATCH_BADGE } from "@/app/_components/payouts/batch-badge";
import { RowTh, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { toProgressView } from "./progress-view";
import { PullingState } from "./pulling-state";
import { Absent } from "@/app/_components/ui/absent";

const STATE_BADGE: Record<WindowSnapshotState, { label: string; tone: Tone }> = {
  none: { label: "No snapshot", tone: "neutral" },
  pulling: { label: "Pulling", tone: "info" },
  complete: { label: "Complete", tone: "success" },
  open: { label: "Window open", tone: "info" },
  partial: { label: "Ended since: pull again", tone: "warning" },
  stale: { label: "Stale", tone: "warning" },
  drift: { label: "Drift", tone: "danger" },
  failed: { label: "Pull failed", tone: "danger" },
};

function StateCell({ row }: { row: WindowOverviewRow }) {
  const badge = STATE_BADGE[row.state];
  return (
    <span className="flex flex-wrap items-center gap-1.5">
      {row.state === "pulling" && row.pull ? (
        <PullingState initial={toProgressView(row.pull)} label={badge.label} />
      ) : (
        <Badge
          tone={badge.tone}
          focusable={false}
          title={row.snapshot?.stale ? `Changed at the service: ${row.snapshot.stale.reason}` : undefined}
        >
          {badge.label}
        </Badge>
      )}
      {row.snapshot ? <span className="text-xs text-ink-muted">v{row.snapshot.version}</span> : null}
    </span>
  );
}

/** Every window of the game with its snapshot state, totals and payout batch; a chart of the months; top recipients. */
export async function WindowsOverview({ db, gameId }: { db: Db; gameId: string }) {
  const rows = await listWindowOverview(db, { gameId, months: 12 });
  const months = rows
    .filter((r) => r.isMonth && r.snapshot)
    .slice(0, 12)
    .reverse();
  const top = await listTopRecipients(db, { gameId, windows: months.map((m) => m.window), limit: 10 });

  return (
    <div className="flex flex-col gap-5">
      <section aria-labelledby="payout-windows-heading">
        <h2 id="payout-windows-heading" className="mb-2 text-sm font-semibold text-ink">
          Payout windows
        </h2>
        <SimpleTable
          caption="Payout windows with their snapshot state, totals and payout batch"
          head={
            <>
              <Th>Window</Th>
              <Th>Snapshot</Th>
              <Th align="right">Gross attributed (USD)</Th>
              <Th align="right">Reversed (USD)</Th>
              <Th align="right">Net attributed (USD)</Th>
              <Th align="right">Renewals</Th>
              <Th align="right">Recipients</Th>
              <Th align="right">Refund events</Th>
              <Th>Payout</Th>
            </>
          }
        >
          {rows.map((row) => {
            const t = row.snapshot?.totals;
            const batch = row.batch ? BATCH_BADGE[row.batch.status] : null;
            return (
              <Tr key={`${row.window.startMs}-${row.window.endMs}`}>
                <RowTh className="font-medium">
                  {row.snapshot ? (
                    <TextLink href={windowHref(row.window)}>{windowLabel(row.window)}</TextLink>
                  ) : (
                    windowLabel(row.window)
                  )}
                </RowTh>
                <Td>
                  <StateCell row={row} />
                </Td>
                <Td align="right">{t ? <Money value={t.grossAttributedUsd} /> : <Absent />}</Td>
                <Td align="right">{t ? <Money value={t.reversedAttributedUsd} /> : <Absent />}</Td>
                <Td align="right" className="font-medium">
                  {t ? <Money value={t.netAttributedUsd} /> : <Absent />}
                </Td>
                <Td align="right" className="tabular-nums">
                  {t ? formatCount(t.renewalsSettled) : ""}
                </Td>
                <Td align="right" className="tabular-nums">
                  {t ? formatCount(t.recipientCount) : ""}
                </Td>
                <Td align="right" className="tabular-nums">
                  {t ? formatCount(t.refundEventsInWindow) : ""}
                </Td>
                <Td>
                  {batch ? (
                    <>
                      <Badge tone={batch.tone}>{batch.label}</Badge>
                      {row.batch?.status === "paid" && row.batch.held > 0 ? (
                        <span className="block text-xs text-warning-ink">
                          {formatCount(row.batch.held)} held, still owed
                        </span>
                      ) : null}
                    </>
                  ) : row.snapshot ? (
                    <span className="text-xs text-ink-muted">Not prepared</span>
                  ) : null}
                </Td>
              </Tr>
            );
          })}
        </SimpleTable>
        <p className="mt-1 text-xs text-ink-muted">
          The last 12 calendar months (UTC) and every other window with a snapshot. Totals are the latest
          version&apos;s, exactly as the service reported them.
        </p>
      </section>

      {months.length > 0 ? (
        <div className="grid gap-4 xl:grid-cols-2">
          <Card title="Monthly attribution">
            <BarChart
              title="Gross, reversed and net attributed per month"
              description="Latest snapshot of each month; reversals belong to the month of the refund."
              currency="USD"
              data={months.map((m) => ({
                label: windowLabel(m.window).replace(/^(\w{3})\w* (\d{4})$/, "$1 $2"),
                values: {
                  gross: m.snapshot?.totals.grossAttributedUsd ?? "0",
                  reversed: m.snapshot?.totals.reversedAttributedUsd ?? "0",
                  net: m.snapshot?.totals.netAttributedUsd ?? "0",
                },
              }))}
              series={[
                { key: "gross", label: "Gross attributed", color: "chart-1" },
                { key: "reversed", label: "Reversed", color: "chart-2" },
                { key: "net", label: "Net attributed", color: "chart-3" },
              ]}
            />
          </Card>
          <Card title="Top recipients">
            <BarChart
              title={`Top ${top.length} recipients by net attributed`}
              description={`Over the ${countOf(months.length, "month")} in the chart beside.`}
              currency="USD"
              layout="bars"
              data={top.map((r) => ({
                label: `${r.playerName ?? "Unresolved"} · ${r.recipientPlayerId}`,
                values: { net: r.netAttributedUsd },
              }))}
              series={[{ key: "net", label: "Net attributed", color: "chart-3" }]}
            />
          </Card>
        </div>
      ) : null}
    </div>
  );
}
