import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Badge } from "@/app/_components/ui/badge";
import { buttonClassName } from "@/app/_components/ui/button-styles";
import { Banner } from "@/app/_components/ui/banner";
import { Card } from "@/app/_components/ui/card";
import { DateTime } from "@/app/_components/ui/date-time";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { KeyValueList } from "@/app/_components/ui/key-value";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Stat, StatGroup } from "@/app/_components/ui/stat";
import { getDb } from "@/db";
import { getLiveBatchId, listPayoutTable, PAYOUT_TABLE_FILTERS, STATEMENT_STATES, summarizeBatch } from "@/db/queries/payouts";
import { getLatestSnapshot, getSnapshot } from "@/db/queries/snapshots";
import { hasRole } from "@/lib/auth/roles";
import { requirePageRole } from "@/lib/auth/session";
import { formatCount } from "@/lib/format";
import { resolveSelectedGame } from "@/lib/games/games";
import { PAYMENT_METHOD_LABELS, PAYMENT_METHODS } from "@/lib/payouts/batches";
import { FLAG_INFO, UNATTRIBUTED_REASON_INFO } from "@/lib/payouts/flag-info";
import { listSnapshotDisputes } from "@/db/queries/disputes";
import { disputeFlagsOf, listFlagOverrides, overrideOf, windowFlagsOf } from "@/lib/payouts/flags";
import { getPayoutBatch } from "@/lib/payouts/ledger";
import { readPayoutSettings } from "@/lib/payouts/settings";
import { parseWindowKey, windowHref, windowKey, windowLabel } from "@/lib/payouts/window-key";
import { formatInstant } from "@/lib/time";
import { NoGame } from "../../no-game";
import {
  approveAllUnflaggedAction,
  approveBatchAction,
  approveStatementsAction,
  discardBatchAction,
  holdStatementsAction,
  markPaidAction,
  overrideFlagAction,
  prepareBatchAction,
  releaseStatementsAction,
  unapproveStatementsAction,
} from "../batch-actions";
import { BATCH_BADGE } from "../windows-overview";
import { BatchPanel, OverrideFlagButton } from "./batch-panel";
import { RecipientTable } from "./recipient-table";
import { payoutTable } from "./table-state";

type Props = { params: Promise<{ window: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const window = parseWindowKey((await params).window);
  return { title: window ? `Payouts · ${windowLabel(window)}` : "Payouts" };
}

export default async function WindowPage({ params, searchParams }: Props) {
  const user = await requirePageRole("viewer");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const window = parseWindowKey((await params).window);
  if (!window) notFound();
  const label = windowLabel(window);
  const crumbs = [{ label: "Payouts", href: "/payouts" }];
  if (!game) {
    return (
      <>
        <PageHeader title={label} breadcrumbs={crumbs} />
        <NoGame role={user.role} />
      </>
    );
  }
  const query = await searchParams;
  const batchId = await getLiveBatchId(db, { gameId: game.id, window });
  const batch = batchId ? await getPayoutBatch(db, { gameId: game.id, batchId }) : null;
  const requested = typeof query.snapshot === "string" ? query.snapshot : undefined;
  // A prepared batch pays from the version it was built on; the page shows that version.
  const snapshot = batch
    ? await getSnapshot(db, { gameId: game.id, snapshotId: batch.snapshotId })
    : requested && /^[0-9a-f-]{36}$/.test(requested)
      ? await getSnapshot(db, { gameId: game.id, snapshotId: requested })
      : await getLatestSnapshot(db, { gameId: game.id, window });
  if (!snapshot || snapshot.window.startMs !== window.startMs || snapshot.window.endMs !== window.endMs) {
    return (
      <>
        <PageHeader title={label} breadcrumbs={crumbs} />
        <EmptyState title="No snapshot of this window yet">Take a snapshot of it from the Payouts page to review what each recipient earned.</EmptyState>
      </>
    );
  }

  const state = payoutTable.parse(query);
  const canAct = hasRole(user.role, "finance");
  const [windowFlags, disputes, overrides, settings, counts, table] = await Promise.all([
    windowFlagsOf(db, snapshot),
    listSnapshotDisputes(db, { gameId: game.id, snapshotId: snapshot.id }),
    batch ? listFlagOverrides(db, { gameId: game.id, batchId: batch.id }) : Promise.resolve([]),
    readPayoutSettings(db),
    batch ? summarizeBatch(db, { gameId: game.id, batchId: batch.id }) : Promise.resolve(null),
    listPayoutTable(db, {
      gameId: game.id,
      snapshotId: snapshot.id,
      batchId: batch?.id ?? null,
      sort: state.sort,
      dir: state.dir,
      q: state.q,
      filter: PAYOUT_TABLE_FILTERS.find((f) => f === state.filters.show),
      state: STATEMENT_STATES.find((s) => s === state.filters.state),
      page: state.page,
      pageSize: state.pageSize,
    }),
  ]);
  const overriddenByRecipient: Record<string, string[]> = {};
  for (const o of overrides) {
    // Flags stored on statements have the batch's snapshot as their cause.
    if (o.recipientPlayerId === null || o.cause !== `snapshot:${snapshot.id}`) continue;
    (overriddenByRecipient[o.recipientPlayerId] ??= []).push(o.flag);
  }
  // A recipient's disputes show beside the flags stored on the statement; "(overridden)" once every one is.
  const disputeFlags = disputeFlagsOf(disputes);
  for (const row of table.rows) {
    const mine = disputeFlags.filter((f) => f.recipientPlayerId === row.recipientPlayerId);
    if (mine.length === 0) continue;
    row.recipientFlags = [...row.recipientFlags, "disputed_renewal"];
    if (mine.every((f) => overrideOf(f, overrides))) (overriddenByRecipient[row.recipientPlayerId] ??= []).push("disputed_renewal");
  }
  const t = snapshot.totals;
  const href = windowHref(window);
  const methods = PAYMENT_METHODS.map((m) => ({ value: m, label: PAYMENT_METHOD_LABELS[m] }));
  const today = formatInstant(Date.now()).slice(0, 10);
  const batchBadge = batch ? BATCH_BADGE[batch.status] : null;
  const reasons = Object.entries(t.unattributedReasons);

  return (
    <>
      <PageHeader
        title={label}
        breadcrumbs={crumbs}
        meta={
          <>
            <Badge tone="neutral">Snapshot v{snapshot.version}</Badge>
            {batchBadge ? <Badge tone={batchBadge.tone}>{batchBadge.label}</Badge> : <Badge tone="neutral">Not prepared</Badge>}
          </>
        }
        description={
          <>
            {formatInstant(window.startMs)} to {formatInstant(window.endMs)} (end exclusive). Snapshot published{" "}
            <DateTime value={snapshot.publishedAt.toISOString()} />
            {snapshot.takenByEmail ? ` by ${snapshot.takenByEmail}` : ""}. Figures are the service&apos;s, exactly as reported; the service pays no recipient.
          </>
        }
        actions={
          canAct ? (
            <BatchPanel
              windowKey={windowKey(window)}
              snapshotId={snapshot.id}
              snapshotVersion={snapshot.version}
              batch={batch ? { id: batch.id, status: batch.status, preparedByEmail: batch.preparedByEmail, preparedByMe: batch.preparedByEmail === user.email } : null}
              counts={{
                draft: counts?.byState.draft.count ?? 0,
                approved: counts?.byState.approved.count ?? 0,
                held: counts?.byState.held.count ?? 0,
                payableApprovedUsd: counts?.byState.approved.payableUsd ?? "0.00",
                total: counts?.total ?? 0,
              }}
              twoPersonRule={settings.twoPersonRule}
              minPayoutUsd={settings.minPayoutUsd}
              actions={{
                prepare: prepareBatchAction,
                approveUnflagged: approveAllUnflaggedAction,
                approveBatch: approveBatchAction,
                markPaid: markPaidAction,
                discard: discardBatchAction,
              }}
              methods={methods}
              today={today}
            />
          ) : undefined
        }
      />

      {windowFlags.length > 0 ? (
        <section aria-labelledby="window-flags-heading" className="mb-5 flex flex-col gap-2">
          <h2 id="window-flags-heading" className="sr-only">
            Flags on this window
          </h2>
          {windowFlags.map((flag) => {
            const override = overrideOf(flag, overrides);
            return (
              <Banner
                key={`${flag.flag}:${flag.cause}`}
                tone={override ? "neutral" : "danger"}
                title={`${flag.label}${override ? " (overridden)" : ": blocks approval"}`}
                action={
                  canAct && batch && !override && (batch.status === "draft" || batch.status === "approved") ? (
                    <OverrideFlagButton action={overrideFlagAction} batchId={batch.id} flag={flag.flag} cause={flag.cause} label={flag.label} />
                  ) : undefined
                }
              >
                <p>
                  {FLAG_INFO[flag.flag].meaning} <span className="text-xs">({flag.detail})</span>
                </p>
                {override ? (
                  <p className="mt-1 text-xs">
                    Overridden by {override.actorEmail} on <DateTime value={override.at.toISOString()} />: “{override.reason}”
                  </p>
                ) : batch && overrides.some((o) => o.recipientPlayerId === null && o.flag === flag.flag) ? (
                  <p className="mt-1 text-xs">An earlier cause of this flag was overridden; this one is new and blocks again.</p>
                ) : !batch ? (
                  <p className="mt-1 text-xs">Prepare the batch to review and override flags.</p>
                ) : null}
              </Banner>
            );
          })}
        </section>
      ) : null}

      <section aria-labelledby="totals-heading" className="mb-5">
        <h2 id="totals-heading" className="mb-2 text-sm font-semibold text-ink">
          Totals of the window
        </h2>
        <StatGroup label="Totals of the window">
          <Stat label="Net attributed (to pay)" value={<Money value={t.netAttributedUsd} currency="USD" />} hint={`${formatCount(t.recipientCount)} recipients`} />
          <Stat label="Gross attributed" value={<Money value={t.grossAttributedUsd} currency="USD" />} hint={`${formatCount(t.renewalsWithAttribution)} renewals with attribution`} />
          <Stat
            label="Reversed attributed"
            value={<Money value={t.reversedAttributedUsd} currency="USD" />}
            hint={`${formatCount(t.refundEventsInWindow)} refund events, ${formatCount(t.reversalsWithoutReceipts)} without receipts`}
          />
          <Stat label="Settled gross" value={<Money value={t.settledGrossUsd} currency="USD" />} hint={`${formatCount(t.renewalsSettled)} renewals settled`} />
          <Stat label="Service fee" value={<Money value={t.invoFeeUsd} currency="USD" />} hint="Never reversed by a refund" />
          <Stat
            label="Partner revenue"
            value={<Money value={t.partnerRevenueUsd} currency="USD" />}
            hint={
              <>
                settled <Money value={t.partnerRevenueSettledUsd} /> − reversed <Money value={t.partnerRevenueReversedUsd} />
              </>
            }
          />
          <Stat label="Settled then fully reversed" value={formatCount(t.renewalsSettledThenFullyReversed)} hint="Pay nothing on these" />
          {counts ? (
            <Stat
              label="Payable in this batch"
              value={<Money value={counts.payableUsd} currency="USD" />}
              hint={`${formatCount(counts.byState.paid.count)} paid (USD ${counts.byState.paid.payableUsd}), ${formatCount(counts.byState.approved.count)} approved, ${formatCount(counts.byState.held.count)} held (USD ${counts.byState.held.payableUsd}), ${formatCount(counts.byState.draft.count)} draft, ${formatCount(counts.byState.carried.count)} carried forward`}
            />
          ) : null}
        </StatGroup>
      </section>

      <div className="mb-5 grid gap-4 lg:grid-cols-2">
        <Card title="Renewals without attribution" description={`${formatCount(t.renewalsWithoutAttribution)} renewals earned nobody a share, by the reason the service gave.`} flush>
          <table className="min-w-full text-sm">
            <caption className="sr-only">Unattributed renewals by reason</caption>
            <thead className="bg-subtle text-left text-ink-muted">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">Reason</th>
                <th scope="col" className="px-3 py-2 text-right font-medium">Renewals</th>
                <th scope="col" className="px-3 py-2 font-medium">What it means for payment</th>
              </tr>
            </thead>
            <tbody>
              {reasons.map(([reason, count]) => {
                const info = UNATTRIBUTED_REASON_INFO[reason];
                return (
                  <tr key={reason} className="border-t border-line align-top">
                    <th scope="row" className="px-3 py-2 text-left font-normal">
                      {info?.label ?? reason}
                      <span className="block font-mono text-xs text-ink-muted">{reason}</span>
                    </th>
                    <td className="px-3 py-2 text-right tabular-nums">{formatCount(count)}</td>
                    <td className={count > 0 && info?.blocks ? "px-3 py-2 font-medium text-danger-ink" : "px-3 py-2 text-ink-muted"}>
                      {info?.meaning ?? "Not described by the spec: ask the service."}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Card>
        <Card title="Payout batch">
          {batch ? (
            <KeyValueList
              items={[
                { label: "Status", value: batchBadge ? <Badge tone={batchBadge.tone}>{batchBadge.label}</Badge> : batch.status },
                { label: "Built on", value: `Snapshot version ${batch.snapshotVersion}` },
                { label: "Prepared", value: <>{batch.preparedByEmail}, <DateTime value={batch.preparedAt} /></> },
                { label: "Approved", value: batch.approvedAt ? <>{batch.approvedByEmail}, <DateTime value={batch.approvedAt} /></> : "Not yet" },
                { label: "Paid", value: batch.paidAt ? <DateTime value={batch.paidAt} /> : null },
                { label: "Minimum payout", value: <Money value={batch.minPayoutUsd} currency="USD" /> },
                { label: "Two-person rule", value: settings.twoPersonRule ? "On: the approver must not be the preparer" : "Off" },
              ]}
            />
          ) : (
            <p className="text-ink-muted">
              No batch yet. {canAct ? "Prepare one to review, approve and pay each recipient." : "Finance prepares it."} Payables under{" "}
              <Money value={settings.minPayoutUsd} currency="USD" /> roll to the next statement.
            </p>
          )}
        </Card>
      </div>

      {canAct ? (
        <Card title="Exports" description="CSV for accounting, streamed; exact decimals, UTC times. Each download is recorded in the audit log." className="mb-5">
          <ul className="flex flex-wrap gap-2 text-sm">
            {[
              { kind: "payouts", label: "Payout file", query: batch ? `batch=${batch.id}` : null },
              { kind: "journal", label: "Journal", query: batch ? `batch=${batch.id}` : null },
              { kind: "lines", label: "Renewal lines", query: `snapshot=${snapshot.id}` },
              { kind: "reversals", label: "Reversals and refund events", query: `snapshot=${snapshot.id}` },
            ].map((e) => (
              <li key={e.kind}>
                {e.query ? (
                  <a className={buttonClassName({ size: "sm" })} href={`/api/exports/${e.kind}?${e.query}`} download>
                    {e.label} (CSV)
                  </a>
                ) : (
                  <span className="inline-flex h-7 items-center px-2.5 text-xs text-ink-muted" title="Prepare the batch first">
                    {e.label}: after the batch is prepared
                  </span>
                )}
              </li>
            ))}
            <li className="self-center text-xs text-ink-muted">Add <span className="font-mono">&amp;bom=1</span> to a link for spreadsheet apps.</li>
          </ul>
        </Card>
      ) : null}

      <section aria-labelledby="recipients-heading">
        <h2 id="recipients-heading" className="mb-2 text-sm font-semibold text-ink">
          Recipient payouts <span className="font-normal text-ink-muted">(amounts in USD)</span>
        </h2>
        <RecipientTable
          rows={table.rows}
          total={table.total}
          state={{ ...state, filters: { ...state.filters } }}
          sortColumns={payoutTable.config.sortColumns}
          pageSizes={payoutTable.config.pageSizes}
          windowHref={href}
          batch={batch ? { id: batch.id, status: batch.status } : null}
          overridden={overriddenByRecipient}
          canAct={canAct}
          actions={
            canAct
              ? {
                  approve: approveStatementsAction,
                  unapprove: unapproveStatementsAction,
                  hold: holdStatementsAction,
                  release: releaseStatementsAction,
                  markPaid: markPaidAction,
                }
              : null
          }
          methods={methods}
          today={today}
        />
      </section>
    </>
  );
}
