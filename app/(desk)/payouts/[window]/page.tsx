import type { PayoutStatementState } from "@/db/types";
import type { Metadata } from "next";
import { Badge } from "@/app/_components/ui/badge";
import { DateTime } from "@/app/_components/ui/date-time";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { listPayoutTable, PAYOUT_TABLE_FILTERS, STATEMENT_STATES, summarizeBatch } from "@/db/queries/payouts";
import { hasRole } from "@/lib/auth/roles";
import { countOf, formatCount, formatUsdText } from "@/lib/format";
import { readWindowClosing } from "@/lib/accounting/close";
import { PAYMENT_METHOD_LABELS, PAYMENT_METHODS, prepareRefusal } from "@/lib/payouts/batches";
import { disputeFlagsOf, overrideOf, recipientsFlaggedBy } from "@/lib/payouts/flags";
import { recipientFlagsNow } from "@/lib/payouts/balance-flags";
import { batchVerdicts } from "@/lib/payouts/offered-actions";
import { parseWindowKey, windowHref, windowKey, windowLabel } from "@/lib/payouts/window-key";
import { formatInstant } from "@/lib/time";
import { NoGame } from "../../no-game";
import { BATCH_BADGE } from "@/app/_components/payouts/batch-badge";
import { BatchPanel } from "./batch-panel";
import { StatementMailPanel } from "./statement-mail-panel";
import { statementIssuerIsSet } from "@/lib/statements/settings";
import { countBatchEmails } from "@/db/queries/statement-deliveries";
import { revokeStatementLinksAction, sendBatchStatementsAction } from "../statement-mail-actions";
import { ClosingSection } from "./closing-section";
import { ExportLinks } from "./export-links";
import { windowExportLinks } from "./exports-list";
import { batchContextOf, batchCountsOf, loadWindowRequest, loadWindowReview, ownFirstDetailsHeld } from "./load";
import { RecipientTable } from "./recipient-table";
import { NoticeProvider } from "@/app/_components/payouts/result-notice";
import { BATCH_ACTIONS, STATEMENT_ACTIONS } from "./action-sets";
import { Panel } from "./panel";
import { WindowFlags } from "./window-flags";
import { WindowTotals } from "./window-totals";
import { BatchDetails } from "./batch-details";
import { PaymentFilesSection } from "./payment-files-section";
import { appliedTableState, payoutTable, sortColumnsOf } from "./table-state";

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
          Finance takes a snapshot of it on the Payouts page to review what each recipient earned.
        </EmptyState>
      </>
    );
  }
  const { batch, snapshot, windowFlags, disputes, overrides, settings } = review;

  const state = appliedTableState(payoutTable.parse(query), Boolean(batch));
  const canAct = hasRole(user.role, "finance");
  const filter = PAYOUT_TABLE_FILTERS.find((f) => f === state.filters.show);
  // A recipient's disputes show beside the flags stored on the statement; "(overridden)" once every one is.
  const disputeFlags = disputeFlagsOf(disputes);
  // "Flagged" lists every statement a flag stands on: those stored at preparation, and those its recipient's disputes
  // and payout profile raise now (worked out over the whole batch only when that filter is asked for).
  // With that filter the flags raised now are read once, over the whole batch: the filter takes every recipient they
  // name, the rows shown below their own.
  const batchFlagsNow =
    batch && filter === "flagged"
      ? await recipientFlagsNow(db, { gameId: game.id, batchId: batch.id, rules: review.rules })
      : undefined;
  const flaggedElsewhere = batchFlagsNow ? recipientsFlaggedBy(disputeFlags, batchFlagsNow) : undefined;
  const tally = batch ? summarizeBatch(db, { gameId: game.id, batchId: batch.id }) : Promise.resolve(null);
  const [counts, table] = await Promise.all([
    tally,
    listPayoutTable(db, {
      gameId: game.id,
      snapshotId: snapshot.id,
      batchId: batch?.id ?? null,
      sort: state.sort,
      dir: state.dir,
      q: state.q,
      filter,
      flaggedElsewhere,
      state: STATEMENT_STATES.find((s) => s === state.filters.state),
      page: state.page,
      pageSize: state.pageSize,
      tally,
    }),
  ]);
  const overriddenByRecipient: Record<string, string[]> = {};
  for (const o of overrides) {
    // Flags stored on statements have the batch's snapshot as their cause.
    if (o.recipientPlayerId === null || o.cause !== `snapshot:${snapshot.id}`) continue;
    addFlag(overriddenByRecipient, o.recipientPlayerId, o.flag);
  }
  // Flags raised now (disputes; the payout profiles' and balances elsewhere, read for the rows shown only: a batch may
  // hold a hundred thousand statements) show as stored ones do, one badge a flag: overridden only when every instance
  // of it is (each is checked by its own cause when approved).
  const shown = table.rows.map((r) => r.recipientPlayerId);
  const shownSet = new Set(shown);
  const raisedNow = [
    ...disputeFlags,
    ...(batchFlagsNow
      ? batchFlagsNow.filter((f) => shownSet.has(f.recipientPlayerId))
      : batch
        ? await recipientFlagsNow(db, {
            gameId: game.id,
            batchId: batch.id,
            recipientPlayerIds: shown,
            rules: review.rules,
          })
        : []),
  ];
  for (const row of table.rows) {
    const mine = raisedNow.filter((f) => f.recipientPlayerId === row.recipientPlayerId);
    for (const flag of new Set(mine.map((f) => f.flag))) {
      row.recipientFlags = [...row.recipientFlags, flag];
      if (mine.every((f) => f.flag !== flag || overrideOf(f, overrides)))
        addFlag(overriddenByRecipient, row.recipientPlayerId, flag);
    }
  }
  const t = snapshot.totals;
  const href = windowHref(window);
  const methods = PAYMENT_METHODS.map((m) => ({ value: m, label: PAYMENT_METHOD_LABELS[m] }));
  const today = formatInstant(Date.now()).slice(0, 10);
  const batchBadge = batch ? BATCH_BADGE[batch.status] : null;
  const openWindowFlags = windowFlags.filter((f) => !overrideOf(f, overrides));
  const batchCounts = {
    ...(await batchCountsOf(
      db,
      { gameId: game.id, batch, counts, canAct, viewer: { actorId: user.id, twoPersonRule: settings.twoPersonRule } },
      review,
      openWindowFlags.length,
    )),
    payableApprovedUsd: counts?.byState.approved.payableUsd ?? "0.00",
  };
  const context = batchContextOf(user, batch, settings);
  const held = table.rows.filter((r) => r.state === "held").map((r) => r.recipientPlayerId);
  const ownHeld = await ownFirstDetailsHeld(db, { gameId: game.id, batch, context, held });
  const batchOffers = context ? batchVerdicts(context, batchCounts) : null;
  const canOverride = canAct && batch !== null && (batch.status === "draft" || batch.status === "approved");
  const mailable = canAct && batch !== null && (batch.status === "approved" || batch.status === "paid");
  // No batch yet: prepared only where no closed window or other batch overlaps (the button is not offered otherwise).
  const prepareRefused = canAct && !batch ? await prepareRefusal(db, { gameId: game.id, window }) : null;
  const [exportLinks, closing, issuerSet, emails] = await Promise.all([
    canAct
      ? windowExportLinks(db, { gameId: game.id, batch, snapshotId: snapshot.id, statements: batchCounts.total, href })
      : Promise.resolve([]),
    readWindowClosing(db, {
      gameId: game.id,
      window,
      batchStatus: batch?.status ?? null,
      held: counts?.byState.held.count ?? 0,
    }),
    mailable ? statementIssuerIsSet(db) : Promise.resolve(false),
    mailable && batch ? countBatchEmails(db, batch.id) : Promise.resolve(null),
  ]);

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
            {closing.closed ? <Badge tone="neutral">Window closed</Badge> : null}
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
        className={
          "mb-4 flex flex-col gap-3 rounded-lg border border-line bg-surface px-4 py-3 lg:flex-row " +
          "lg:items-start lg:justify-between"
        }
      >
        {/* Kept readable beside actions that say why they are not offered (their reasons take width). */}
        <div className="min-w-0 lg:min-w-64 lg:flex-1">
          <h2 id="batch-heading" className="text-sm font-semibold text-ink">
            Payout batch
          </h2>
          {batch && counts ? (
            <p className="mt-0.5 text-ink-muted">
              <Money value={counts.payableUsd} currency="USD" className="font-semibold text-ink" /> in{" "}
              {countOf(counts.total, "statement")}
              {counts.total > 0 ? `: ${stateCounts(counts.byState)}` : ""}. Prepared by {batch.preparedByEmail}
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
            gameId={game.id}
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
                    revision: batch.revision,
                  }
                : null
            }
            counts={batchCounts}
            offers={batchOffers}
            twoPersonRule={context?.twoPersonRule ?? settings.twoPersonRule}
            prepareRefused={prepareRefused}
            minPayoutUsd={settings.minPayoutUsd}
            actions={BATCH_ACTIONS}
            methods={methods}
            today={today}
          />
        ) : null}
        {mailable && batch && counts && emails ? (
          <StatementMailPanel
            gameId={game.id}
            batchId={batch.id}
            statements={counts.total}
            emailed={emails.emailed}
            noAddress={emails.noAddress}
            failed={emails.failed}
            runs={emails.runs}
            issuerSet={issuerSet}
            actions={{ send: sendBatchStatementsAction, revoke: revokeStatementLinksAction }}
          />
        ) : null}
      </section>

      {canAct && batch && batch.status !== "draft" && batch.status !== "discarded" ? (
        <PaymentFilesSection
          db={db}
          gameId={game.id}
          batch={{ id: batch.id, status: batch.status, snapshotId: batch.snapshotId }}
          twoPersonRule={settings.twoPersonRule}
          today={today}
          userEmail={user.email}
        />
      ) : null}

      <WindowFlags
        windowFlags={windowFlags}
        openCount={openWindowFlags.length}
        overrides={overrides}
        batch={batch}
        canOverride={canOverride}
      />

      <section aria-labelledby="recipients-heading" className="mb-6">
        <h2 id="recipients-heading" className="mb-2 text-sm font-semibold text-ink">
          Recipient payouts <span className="font-normal text-ink-muted">(amounts in USD)</span>
        </h2>
        <RecipientTable
          rows={table.rows}
          total={table.total}
          state={{ ...state, filters: { ...state.filters } }}
          sortColumns={sortColumnsOf(Boolean(batch))}
          pageSizes={payoutTable.config.pageSizes}
          windowHref={href}
          batch={batch ? { id: batch.id, status: batch.status, gameId: game.id } : null}
          overridden={overriddenByRecipient}
          canAct={canAct}
          context={context}
          openWindowFlags={openWindowFlags.length}
          ownFirstDetails={ownHeld}
          actions={canAct ? STATEMENT_ACTIONS : null}
          methods={methods}
          today={today}
        />
      </section>

      <div className="grid items-start gap-4 lg:grid-cols-2">
        <WindowTotals totals={t} />

        <BatchDetails
          batch={batch}
          twoPersonRule={context?.twoPersonRule ?? false}
          minPayoutUsd={settings.minPayoutUsd}
        />

        {canAct ? (
          <Panel id="exports" title="Exports" summary="CSV for accounting" open>
            <p className="mb-3 text-xs text-ink-muted">
              Streamed; exact decimals, UTC times. Each download is recorded in the audit log.
            </p>
            <ExportLinks exports={exportLinks} />
          </Panel>
        ) : null}

        <ClosingSection closing={closing} canAct={canAct} gameId={game.id} windowKey={windowKey(window)} />
      </div>
    </NoticeProvider>
  );
}

function addFlag(byRecipient: Record<string, string[]>, recipientPlayerId: number, flag: string): void {
  const flags = byRecipient[recipientPlayerId] ?? [];
  flags.push(flag);
  byRecipient[recipientPlayerId] = flags;
}

/** "2 approved (USD 1,200.00), 1 carried forward": by state, what each pays; a carried one pays nothing. */
const amountOf = (label: string, usd: string) => (label === "carried forward" ? "" : ` (${formatUsdText(usd)})`);
function stateCounts(byState: Record<PayoutStatementState, { count: number; payableUsd: string }>): string {
  const named = [
    ["draft", byState.draft],
    ["approved", byState.approved],
    ["held", byState.held],
    ["in payment", byState.in_payment],
    ["paid", byState.paid],
    ["returned", byState.returned],
    ["carried forward", byState.carried],
  ] as const;
  return named
    .filter(([, state]) => state.count > 0)
    .map(([label, state]) => `${formatCount(state.count)} ${label}${amountOf(label, state.payableUsd)}`)
    .join(", ");
}
