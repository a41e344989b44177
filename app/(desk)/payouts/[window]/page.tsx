import type { Metadata } from "next";
import { Badge } from "@/app/_components/ui/badge";
import { Banner } from "@/app/_components/ui/banner";
import { DateTime } from "@/app/_components/ui/date-time";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { KeyValueList } from "@/app/_components/ui/key-value";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Stat, StatGroup } from "@/app/_components/ui/stat";
import { listPayoutTable, PAYOUT_TABLE_FILTERS, STATEMENT_STATES, summarizeBatch } from "@/db/queries/payouts";
import { hasRole } from "@/lib/auth/roles";
import { formatCount } from "@/lib/format";
import { exportAvailability } from "@/lib/exports/availability";
import { PAYMENT_METHOD_LABELS, PAYMENT_METHODS } from "@/lib/payouts/batches";
import { FLAG_INFO, UNATTRIBUTED_REASON_INFO } from "@/lib/payouts/flag-info";
import { disputeFlagsOf, overrideOf } from "@/lib/payouts/flags";
import { profileFlagsOf } from "@/lib/profiles/flags";
import { batchVerdicts } from "@/lib/payouts/offered-actions";
import { parseWindowKey, windowHref, windowKey, windowLabel } from "@/lib/payouts/window-key";
import { formatInstant } from "@/lib/time";
import { NoGame } from "../../no-game";
import {
  approveAllUnflaggedAction,
  approveBatchAction,
  approveStatementsAction,
  carryForwardStatementsAction,
  discardBatchAction,
  holdStatementsAction,
  markPaidAction,
  overrideFlagAction,
  prepareBatchAction,
  releaseStatementsAction,
  unapproveStatementsAction,
} from "../batch-actions";
import { BATCH_BADGE } from "@/app/_components/payouts/batch-badge";
import { OverrideFlagButton } from "@/app/_components/payouts/override-flag-button";
import { BatchPanel } from "./batch-panel";
import { ExportLinks } from "./export-links";
import { batchContextOf, loadWindowRequest, loadWindowReview } from "./load";
import { RecipientTable } from "./recipient-table";
import { NoticeProvider } from "@/app/_components/payouts/result-notice";
import { RowTh, SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { Panel } from "./panel";
import { PaymentFilesSection } from "./payment-files-section";
import { payoutTable } from "./table-state";

type Props = {
  params: Promise<{ window: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const window = parseWindowKey((await params).window);
  return { title: window ? `Payouts · ${windowLabel(window)}` : "Payouts" };
}

export default async function WindowPage({ params, searchParams }: Props) {
  const { user, db, game, window } = await loadWindowRequest((await params).window);
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
  const requested = typeof query.snapshot === "string" ? query.snapshot : undefined;
  const review = await loadWindowReview(db, { gameId: game.id, window, snapshotId: requested });
  if (!review) {
    return (
      <>
        <PageHeader title={label} breadcrumbs={crumbs} />
        <EmptyState title="No snapshot of this window yet">
          Take a snapshot of it from the Payouts page to review what each recipient earned.
        </EmptyState>
      </>
    );
  }
  const { batch, snapshot, windowFlags, disputes, overrides, settings } = review;

  const state = payoutTable.parse(query);
  const canAct = hasRole(user.role, "finance");
  const [counts, table] = await Promise.all([
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
    if (mine.every((f) => overrideOf(f, overrides)))
      (overriddenByRecipient[row.recipientPlayerId] ??= []).push("disputed_renewal");
  }
  // Flags raised by the recipients' payout profiles (lib/profiles/flags.ts) show the same way.
  for (const f of batch ? await profileFlagsOf(db, { gameId: game.id, batchId: batch.id }) : []) {
    const row = table.rows.find((r) => r.recipientPlayerId === f.recipientPlayerId);
    if (!row) continue;
    row.recipientFlags = [...row.recipientFlags, f.flag];
    if (overrideOf(f, overrides)) (overriddenByRecipient[row.recipientPlayerId] ??= []).push(f.flag);
  }
  const t = snapshot.totals;
  const href = windowHref(window);
  const methods = PAYMENT_METHODS.map((m) => ({ value: m, label: PAYMENT_METHOD_LABELS[m] }));
  const today = formatInstant(Date.now()).slice(0, 10);
  const batchBadge = batch ? BATCH_BADGE[batch.status] : null;
  const reasons = Object.entries(t.unattributedReasons);
  const batchCounts = {
    draft: counts?.byState.draft.count ?? 0,
    approved: counts?.byState.approved.count ?? 0,
    held: counts?.byState.held.count ?? 0,
    payableApprovedUsd: counts?.byState.approved.payableUsd ?? "0.00",
    total: counts?.total ?? 0,
  };
  const context = batchContextOf(user, batch, settings);
  const batchOffers = context ? batchVerdicts(context, batchCounts) : null;
  const openWindowFlags = windowFlags.filter((f) => !overrideOf(f, overrides));
  const canOverride = canAct && batch !== null && (batch.status === "draft" || batch.status === "approved");
  const exportsList = [
    { kind: "payouts", label: "Payout file", query: batch ? `batch=${batch.id}` : "" },
    { kind: "journal", label: "Journal", query: batch ? `batch=${batch.id}` : "" },
    { kind: "lines", label: "Renewal lines", query: `snapshot=${snapshot.id}` },
    { kind: "reversals", label: "Reversals and refund events", query: `snapshot=${snapshot.id}` },
  ] as const;

  return (
    <NoticeProvider>
      <PageHeader
        title={label}
        breadcrumbs={crumbs}
        meta={
          <>
            <Badge tone="neutral">Snapshot v{snapshot.version}</Badge>
            {batchBadge ? (
              <Badge tone={batchBadge.tone}>{batchBadge.label}</Badge>
            ) : (
              <Badge tone="neutral">Not prepared</Badge>
            )}
          </>
        }
        description={
          <>
            {formatInstant(window.startMs)} to {formatInstant(window.endMs)} (end exclusive), snapshot published{" "}
            <DateTime value={snapshot.publishedAt.toISOString()} />
            {snapshot.takenByEmail ? ` by ${snapshot.takenByEmail}` : ""}. Figures exactly as the service reported them;
            the service pays no recipient.
          </>
        }
      />

      <section
        aria-labelledby="batch-heading"
        className="mb-4 flex flex-col gap-3 rounded-lg border border-line bg-surface px-4 py-3 lg:flex-row lg:items-start lg:justify-between"
      >
        <div className="min-w-0 lg:flex-1">
          <h2 id="batch-heading" className="text-sm font-semibold text-ink">
            Payout batch
          </h2>
          {batch && counts ? (
            <p className="mt-0.5 text-ink-muted">
              <Money value={counts.payableUsd} currency="USD" className="font-semibold text-ink" /> payable:{" "}
              {formatCount(counts.byState.draft.count)} draft, {formatCount(counts.byState.approved.count)} approved,{" "}
              {formatCount(counts.byState.held.count)} held, {formatCount(counts.byState.in_payment.count)} in payment,{" "}
              {formatCount(counts.byState.paid.count)} paid, {formatCount(counts.byState.returned.count)} returned,{" "}
              {formatCount(counts.byState.carried.count)} carried forward. Prepared by {batch.preparedByEmail}
              {batch.approvedByEmail ? `, approved by ${batch.approvedByEmail}` : ""}.
            </p>
          ) : (
            <p className="mt-0.5 text-ink-muted">
              Not prepared yet.{" "}
              {canAct ? "Prepare it to review, approve and pay each recipient." : "Finance prepares it."}
            </p>
          )}
        </div>
        {canAct ? (
          <BatchPanel
            windowKey={windowKey(window)}
            snapshotId={snapshot.id}
            snapshotVersion={snapshot.version}
            batch={
              batch
                ? {
                    id: batch.id,
                    status: batch.status,
                    preparedByEmail: batch.preparedByEmail,
                    preparedByMe: batch.preparedById === user.id,
                  }
                : null
            }
            counts={batchCounts}
            offers={batchOffers}
            twoPersonRule={context?.twoPersonRule ?? settings.twoPersonRule}
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
        ) : null}
      </section>

      {canAct && batch && batch.status !== "draft" && batch.status !== "discarded" ? (
        <PaymentFilesSection db={db} gameId={game.id} batch={{ id: batch.id, status: batch.status }} today={today} />
      ) : null}

      {windowFlags.length > 0 ? (
        <section aria-labelledby="window-flags-heading" className="mb-4">
          <Banner
            tone={openWindowFlags.length > 0 ? "danger" : "neutral"}
            title={
              <span id="window-flags-heading">
                {openWindowFlags.length > 0
                  ? `${formatCount(openWindowFlags.length)} flag${openWindowFlags.length === 1 ? " on this window blocks" : "s on this window block"} approval`
                  : "Flags on this window (all overridden)"}
              </span>
            }
          >
            <ul className="mt-1 flex flex-col gap-1.5">
              {windowFlags.map((flag) => {
                const override = overrideOf(flag, overrides);
                return (
                  <li
                    key={`${flag.flag}:${flag.cause}`}
                    className="flex flex-wrap items-start justify-between gap-x-4 gap-y-1"
                  >
                    <div className="min-w-0 flex-1">
                      <span className="font-medium">
                        {flag.label}
                        {override ? " (overridden)" : ""}
                      </span>
                      : {FLAG_INFO[flag.flag].meaning} <span className="text-xs">({flag.detail})</span>
                      {override ? (
                        <span className="block text-xs">
                          Overridden by {override.actorEmail} on <DateTime value={override.at.toISOString()} />: “
                          {override.reason}”
                        </span>
                      ) : batch && overrides.some((o) => o.recipientPlayerId === null && o.flag === flag.flag) ? (
                        <span className="block text-xs">
                          An earlier cause of this flag was overridden; this one is new and blocks again.
                        </span>
                      ) : !batch ? (
                        <span className="block text-xs">Prepare the batch to review and override flags.</span>
                      ) : null}
                    </div>
                    {canOverride && batch && !override ? (
                      <OverrideFlagButton
                        action={overrideFlagAction}
                        batchId={batch.id}
                        flag={flag.flag}
                        cause={flag.cause}
                        label={flag.label}
                      />
                    ) : null}
                  </li>
                );
              })}
            </ul>
          </Banner>
        </section>
      ) : null}

      <section aria-labelledby="recipients-heading" className="mb-6">
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
          context={context}
          openWindowFlags={openWindowFlags.length}
          actions={
            canAct
              ? {
                  approve: approveStatementsAction,
                  unapprove: unapproveStatementsAction,
                  hold: holdStatementsAction,
                  release: releaseStatementsAction,
                  carryForward: carryForwardStatementsAction,
                  markPaid: markPaidAction,
                }
              : null
          }
          methods={methods}
          today={today}
        />
      </section>

      <div className="grid items-start gap-4 lg:grid-cols-2">
        <Panel
          id="totals"
          className="lg:col-span-2"
          title="Totals of the window"
          summary={
            <>
              Net attributed <Money value={t.netAttributedUsd} currency="USD" />, {formatCount(t.recipientCount)}{" "}
              recipients
            </>
          }
        >
          <StatGroup label="Totals of the window">
            <Stat
              label="Net attributed (to pay)"
              value={<Money value={t.netAttributedUsd} currency="USD" />}
              hint={`${formatCount(t.recipientCount)} recipients`}
            />
            <Stat
              label="Gross attributed"
              value={<Money value={t.grossAttributedUsd} currency="USD" />}
              hint={`${formatCount(t.renewalsWithAttribution)} renewals with attribution`}
            />
            <Stat
              label="Reversed attributed"
              value={<Money value={t.reversedAttributedUsd} currency="USD" />}
              hint={`${formatCount(t.refundEventsInWindow)} refunds, ${formatCount(t.reversalsWithoutReceipts)} without per-refund detail`}
            />
            <Stat
              label="Settled gross"
              value={<Money value={t.settledGrossUsd} currency="USD" />}
              hint={`${formatCount(t.renewalsSettled)} renewals settled`}
            />
            <Stat
              label="Service fee"
              value={<Money value={t.invoFeeUsd} currency="USD" />}
              hint="Never reversed by a refund"
            />
            <Stat
              label="Partner revenue"
              value={<Money value={t.partnerRevenueUsd} currency="USD" />}
              hint={
                <>
                  settled <Money value={t.partnerRevenueSettledUsd} /> − reversed{" "}
                  <Money value={t.partnerRevenueReversedUsd} />
                </>
              }
            />
            <Stat
              label="Settled then fully refunded"
              value={formatCount(t.renewalsSettledThenFullyReversed)}
              hint="Pay nothing on these"
            />
          </StatGroup>
        </Panel>

        <Panel
          id="unattributed"
          className="lg:col-span-2"
          title="Renewals without attribution"
          summary={`${formatCount(t.renewalsWithoutAttribution)} renewals earned nobody a share`}
          open={reasons.some(([reason, count]) => count > 0 && UNATTRIBUTED_REASON_INFO[reason]?.blocks)}
        >
          <SimpleTable
            caption="Unattributed renewals by reason"
            frame="none"
            head={
              <>
                <Th>Reason</Th>
                <Th align="right">Renewals</Th>
                <Th>What it means for payment</Th>
              </>
            }
          >
            {reasons.map(([reason, count]) => {
              const info = UNATTRIBUTED_REASON_INFO[reason];
              return (
                <Tr key={reason}>
                  <RowTh>
                    {info?.label ?? reason}
                    <span
                      className="block font-mono text-xs text-ink-muted"
                      title="The reason as the service reports it"
                    >
                      {reason}
                    </span>
                  </RowTh>
                  <Td align="right" className="tabular-nums">
                    {formatCount(count)}
                  </Td>
                  <Td className={count > 0 && info?.blocks ? "font-medium text-danger-ink" : "text-ink-muted"}>
                    {info?.meaning ??
                      "A reason Payout Desk does not know yet: ask the service what it means before paying."}
                  </Td>
                </Tr>
              );
            })}
          </SimpleTable>
        </Panel>

        <Panel
          id="batch-details"
          title="Batch details"
          summary={batch ? `Built on snapshot version ${batch.snapshotVersion}` : "Not prepared"}
        >
          {batch ? (
            <KeyValueList
              items={[
                {
                  label: "Status",
                  value: batchBadge ? <Badge tone={batchBadge.tone}>{batchBadge.label}</Badge> : batch.status,
                },
                { label: "Built on", value: `Snapshot version ${batch.snapshotVersion}` },
                {
                  label: "Prepared",
                  value: (
                    <>
                      {batch.preparedByEmail}, <DateTime value={batch.preparedAt} />
                    </>
                  ),
                },
                {
                  label: "Approved",
                  value: batch.approvedAt ? (
                    <>
                      {batch.approvedByEmail}, <DateTime value={batch.approvedAt} />
                    </>
                  ) : (
                    "Not yet"
                  ),
                },
                { label: "Paid", value: batch.paidAt ? <DateTime value={batch.paidAt} /> : null },
                { label: "Minimum payout", value: <Money value={batch.minPayoutUsd} currency="USD" /> },
                {
                  label: "Two-person rule",
                  value: context?.twoPersonRule ? "On: the approver must not be the preparer" : "Off",
                },
              ]}
            />
          ) : (
            <p className="text-ink-muted">
              No batch yet. Payables under <Money value={settings.minPayoutUsd} currency="USD" /> roll to the next
              statement.
            </p>
          )}
        </Panel>

        {canAct ? (
          <Panel id="exports" title="Exports" summary="CSV for accounting" open>
            <p className="mb-3 text-xs text-ink-muted">
              Streamed; exact decimals, UTC times. Each download is recorded in the audit log.
            </p>
            <ExportLinks
              exports={exportsList.map((e) => {
                const available = exportAvailability(e.kind, batch);
                return {
                  kind: e.kind,
                  label: e.label,
                  query: e.query,
                  unavailable: available.ok ? null : available.reason,
                };
              })}
            />
          </Panel>
        ) : null}
      </div>
    </NoticeProvider>
  );
}
