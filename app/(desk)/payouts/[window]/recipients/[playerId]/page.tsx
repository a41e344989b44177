import { recordTitle } from "@/app/_components/shell/record-title";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Badge } from "@/app/_components/ui/badge";
import { Banner } from "@/app/_components/ui/banner";
import { Card } from "@/app/_components/ui/card";
import { KeyValueList } from "@/app/_components/ui/key-value";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { TextLink } from "@/app/_components/ui/text-link";
import { getSnapshotRecipient, listCarrySources, listEvidenceLines } from "@/db/queries/payouts";
import { countSnapshotReversals, listSnapshotReversals } from "@/db/queries/snapshot-evidence";
import { hasRole } from "@/lib/auth/roles";
import { countOf, formatCount } from "@/lib/format";
import { PAYMENT_METHOD_LABELS, PAYMENT_METHODS } from "@/lib/payouts/batches";
import { paymentMethodLabel } from "@/lib/payouts/payment-methods";
import { statementCarryReason } from "@/lib/payouts/compute";
import { FLAG_INFO, isPayoutFlag, stopsPaymentByHand } from "@/lib/payouts/flag-info";
import { type BatchFlags, disputeFlagsOf, flagsOfStatement, overrideOf } from "@/lib/payouts/flags";
import { recipientFlagsNow } from "@/lib/payouts/balance-flags";
import { isPaymentBar } from "@/lib/payments/items";
import { offeredStatementActions } from "@/lib/payouts/offered-actions";
import { parseWindowKey, windowHref, windowLabel } from "@/lib/payouts/window-key";
import { formatInstant } from "@/lib/time";
import {
  enteredTheDetails,
  OWN_DETAILS,
  PREPARER_OVERRIDES_AFTER_APPROVAL,
  preparerMayNotOverride,
} from "@/lib/payouts/flag-override";
import { overrideFlagAction } from "../../../batch-actions";
import { returnPaymentAction } from "../../payment-actions";
import { ReturnPaymentButton } from "../../payment-file-forms";
import { paidStatementLabel } from "../../payment-files-section";
import { OverrideFlagButton } from "@/app/_components/payouts/override-flag-button";
import { stateLabel } from "@/app/_components/payouts/flag-badges";
import { STATEMENT_ACTIONS } from "../../action-sets";
import { batchContextOf, loadStatement, loadWindowRequest, loadWindowReview, ownFirstDetailsHeld } from "../../load";
import { DisputeList } from "./dispute-list";
import { EvidenceLines } from "./evidence-lines";
import { ReversalList } from "./reversal-list";
import { StatementActions } from "./statement-actions";
import { NoticeProvider } from "@/app/_components/payouts/result-notice";
import { StatementDeliveries } from "./statement-deliveries";
import { StatementDocuments } from "./statement-documents";
import { pageParam } from "@/lib/table-state";
import { money } from "@/lib/money";
import { DeductedBefore } from "./reversal-list";

type Props = {
  params: Promise<{ window: string; playerId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Pick<Props, "params">): Promise<Metadata> {
  const p = await params;
  const window = parseWindowKey(p.window);
  return recordTitle("Recipient", p.playerId, window ? windowLabel(window) : undefined);
}

const PAGE_SIZE = 100;

export default async function RecipientEvidencePage({ params, searchParams }: Props) {
  const p = await params;
  const { user, db, game, window } = await loadWindowRequest(p.window);
  if (!/^\d{1,15}$/.test(p.playerId) || !game) notFound();
  const playerId = Number(p.playerId);
  const query = await searchParams;
  const page = pageParam(query, 10_000);
  const mismatchesOnly = query.lines === "mismatches";

  const review = await loadWindowReview(db, { gameId: game.id, window, recipientPlayerId: playerId });
  if (!review) notFound();
  const { batch, snapshot, windowFlags, disputes: disputeRows, overrides, settings, rules } = review;
  const { statement, undone } = batch
    ? await loadStatement(db, { gameId: game.id, batchId: batch.id, recipientPlayerId: playerId })
    : { statement: null, undone: false };
  const [lines, reversals, reversalCounts, carries, reported] = await Promise.all([
    listEvidenceLines(db, {
      gameId: game.id,
      snapshotId: snapshot.id,
      recipientPlayerId: playerId,
      page,
      pageSize: PAGE_SIZE,
      mismatchesOnly,
    }),
    listSnapshotReversals(db, { gameId: game.id, snapshotId: snapshot.id, recipientPlayerId: playerId }),
    countSnapshotReversals(db, { gameId: game.id, snapshotId: snapshot.id, recipientPlayerId: playerId }),
    statement ? listCarrySources(db, { gameId: game.id, statementId: statement.id }) : Promise.resolve([]),
    getSnapshotRecipient(db, { gameId: game.id, snapshotId: snapshot.id, recipientPlayerId: playerId }),
  ]);
  if (!statement && lines.total === 0 && reversals.length === 0 && disputeRows.length === 0) notFound();

  const canAct = hasRole(user.role, "finance");
  const context = batchContextOf(user, batch, settings);
  const held = statement?.state === "held" ? [playerId] : [];
  const ownHeld = (await ownFirstDetailsHeld(db, { gameId: game.id, batch, context, held })).length > 0;
  const href = windowHref(window);
  const name = statement?.playerName ?? reported?.playerName ?? null;
  const email = statement?.playerEmail ?? reported?.playerEmail ?? null;
  const resolved = statement?.resolved ?? reported?.resolved ?? true;
  const recipientFlags = statement?.recipientFlags ?? [];
  const flags: BatchFlags = {
    snapshotId: snapshot.id,
    window: windowFlags,
    disputes: disputeFlagsOf(disputeRows),
    disputeRows,
    overrides,
    profiles: batch
      ? await recipientFlagsNow(db, { gameId: game.id, batchId: batch.id, recipientPlayerId: playerId, rules })
      : [],
  };
  const openFlags = statement
    ? flagsOfStatement(flags, playerId, recipientFlags).filter((f) => !overrideOf(f, overrides))
    : [];
  // Flags the two-person rule leaves to someone else (details this person entered; once approved, what stops the money
  // of a batch they prepared): no override is offered to them, and the banner says why.
  const notTheirs = new Map<string, string>();
  for (const flag of openFlags) {
    const key = `${flag.flag}:${flag.cause}`;
    if (settings.twoPersonRule && (await enteredTheDetails(db, game.id, flag, user.id)))
      notTheirs.set(key, OWN_DETAILS);
    else if (batch && preparerMayNotOverride(batch, flag.flag, user.id, batch.twoPersonRule))
      notTheirs.set(key, PREPARER_OVERRIDES_AFTER_APPROVAL);
  }
  const methods = PAYMENT_METHODS.map((m) => ({ value: m, label: PAYMENT_METHOD_LABELS[m] }));
  const today = formatInstant(Date.now()).slice(0, 10);
  const pages = Math.max(1, Math.ceil((mismatchesOnly ? lines.mismatches : lines.total) / PAGE_SIZE));
  const badge = statement ? stateLabel(statement.state, undone) : null;
  const linkFor = (extra: Record<string, string>) => {
    const qs = new URLSearchParams({ ...(mismatchesOnly ? { lines: "mismatches" } : {}), ...extra });
    return `${href}/recipients/${playerId}?${qs.toString()}`;
  };

  return (
    <NoticeProvider>
      <PageHeader
        title={name ?? `Player ${playerId}`}
        breadcrumbs={[
          { label: "Payouts", href: "/payouts" },
          { label: windowLabel(window), href },
        ]}
        meta={
          <>
            {badge ? <Badge tone={badge.tone}>{badge.label}</Badge> : null}
            {!resolved ? <Badge tone="danger">Unresolved recipient</Badge> : null}
          </>
        }
        description={
          <>
            Evidence for {windowLabel(window)}, snapshot version {snapshot.version}: player{" "}
            <span className="font-mono">#{playerId}</span>
            {email ? `, ${email}` : ""}. <TextLink href={`/recipients/${playerId}`}>History across months</TextLink>
          </>
        }
        actions={
          canAct && statement && batch ? (
            <>
              <StatementActions
                gameId={game.id}
                batchId={batch.id}
                statementId={statement.id}
                payableUsd={statement.payableUsd}
                offers={
                  context
                    ? offeredStatementActions(context, {
                        state: statement.state,
                        openFlags: openFlags.length,
                        windowFlags: openFlags.filter((f) => f.recipientPlayerId === null).length,
                        availableUsd: statement.availableUsd,
                        stopsPayment: openFlags.filter((f) => stopsPaymentByHand(f.flag)).map((f) => f.label),
                        ownFirstDetails: ownHeld,
                      })
                    : []
                }
                actions={STATEMENT_ACTIONS}
                methods={methods}
                today={today}
              />
              {statement.state === "paid" ? (
                statement.stateChangedBy === user.email && settings.twoPersonRule ? (
                  <span className="text-xs text-ink-muted">
                    You recorded this payment: another finance user records it as returned.
                  </span>
                ) : (
                  <ReturnPaymentButton
                    action={returnPaymentAction}
                    gameId={game.id}
                    paid={[
                      { id: statement.id, label: paidStatementLabel(statement), paidAt: statement.stateChangedAt },
                    ]}
                    triggerLabel="Record as returned…"
                  />
                )
              ) : null}
            </>
          ) : undefined
        }
      />

      {statement && openFlags.length > 0 && statement.state !== "paid" && statement.state !== "carried" ? (
        <div className="mb-5 flex flex-col gap-2">
          {openFlags.map((flag) => {
            const isRecipientFlag = flag.recipientPlayerId !== null;
            return (
              <Banner
                key={`${flag.flag}:${flag.cause}`}
                tone="danger"
                title={`${flag.label}: ${flagEffect(statement.state, flag.flag, batch?.status)}`}
                action={
                  canAct &&
                  batch &&
                  isRecipientFlag &&
                  !notTheirs.has(`${flag.flag}:${flag.cause}`) &&
                  (batch.status === "draft" || batch.status === "approved") ? (
                    <OverrideFlagButton
                      action={overrideFlagAction}
                      batchId={batch.id}
                      gameId={game.id}
                      flag={flag}
                      recipientPlayerId={playerId}
                    />
                  ) : undefined
                }
              >
                {FLAG_INFO[flag.flag].meaning}
                {flag.detail !== FLAG_INFO[flag.flag].meaning ? (
                  <span className="block text-xs">{flag.detail}</span>
                ) : null}
                {!isRecipientFlag ? (
                  <span className="block text-xs">A flag of the whole window: override it on the window page.</span>
                ) : null}
                {canAct && notTheirs.has(`${flag.flag}:${flag.cause}`) ? (
                  <span className="block text-xs">{notTheirs.get(`${flag.flag}:${flag.cause}`)}</span>
                ) : null}
              </Banner>
            );
          })}
        </div>
      ) : null}

      {disputeRows.length > 0 ? (
        <DisputeList disputes={disputeRows} overrides={overrides} hasBatch={batch !== null} />
      ) : null}

      <div className="mb-5 grid gap-4 lg:grid-cols-2">
        <Card
          title="Statement"
          actions={canAct && statement ? <StatementDocuments statement={statement} gameId={game.id} /> : undefined}
        >
          {statement ? (
            <KeyValueList
              items={[
                { label: "Gross attributed", value: <Money value={statement.grossAttributedUsd} currency="USD" /> },
                {
                  label: "Reversed attributed",
                  value: <Money value={statement.reversedAttributedUsd} currency="USD" />,
                },
                ...(money(statement.reversedBeforeUsd).isZero()
                  ? []
                  : [{ label: "Deducted already", value: <DeductedBefore amountUsd={statement.reversedBeforeUsd} /> }]),
                {
                  label: "Net attributed",
                  value: <Money value={statement.netAttributedUsd} currency="USD" className="font-semibold" />,
                },
                {
                  label: "Carried in",
                  value: (
                    <span className="flex flex-col">
                      <Money value={statement.carriedInUsd} currency="USD" />
                      {carries.map((c) => {
                        const from = { startMs: c.windowStart.getTime(), endMs: c.windowEnd.getTime() };
                        return (
                          <span key={c.fromStatementId} className="text-xs text-ink-muted">
                            <Money value={c.amountUsd} /> from{" "}
                            <TextLink href={`${windowHref(from)}/recipients/${playerId}`}>{windowLabel(from)}</TextLink>
                          </span>
                        );
                      })}
                    </span>
                  ),
                },
                { label: "Available", value: <Money value={statement.availableUsd} currency="USD" /> },
                {
                  label: "Payable",
                  value: <Money value={statement.payableUsd} currency="USD" className="font-semibold" />,
                },
                {
                  label: "Carried forward",
                  value: (
                    <span>
                      <Money value={statement.carryOutUsd} currency="USD" />{" "}
                      <span className="text-xs text-ink-muted">{statementCarryReason(statement) ?? ""}</span>
                    </span>
                  ),
                },
                {
                  label: "State",
                  value: `${badge?.label ?? statement.state}${statement.holdReason ? `: ${statement.holdReason}` : ""}`,
                },
                {
                  label: "Payment",
                  value:
                    statement.state === "paid" ? (
                      <>
                        <Money value={statement.paidAmountUsd ?? "0.00"} currency="USD" /> on {statement.paidOn} by{" "}
                        {paymentMethodLabel(statement.paymentMethod)}, reference{" "}
                        <span className="font-mono">{statement.paymentReference}</span>
                      </>
                    ) : null,
                },
                {
                  label: "Flags",
                  value:
                    recipientFlags.length === 0
                      ? "None"
                      : recipientFlags
                          .map((f) => {
                            const o = overrides.find(
                              (x) =>
                                x.flag === f &&
                                x.recipientPlayerId === playerId &&
                                x.cause === `snapshot:${snapshot.id}`,
                            );
                            const label = isPayoutFlag(f) ? FLAG_INFO[f].label : f;
                            return o ? `${label} (overridden by ${o.actorEmail}: “${o.reason}”)` : label;
                          })
                          .join("; "),
                },
              ]}
            />
          ) : (
            <p className="text-ink-muted">
              No payout batch for this window yet: the statement appears once finance prepares it.
            </p>
          )}
        </Card>
        {statement ? <StatementDeliveries gameId={game.id} statement={statement} canAct={canAct} /> : null}
        <Card title="Checks">
          <KeyValueList
            items={[
              { label: "Renewal lines", value: formatCount(lines.total) },
              {
                label: "Reconciliation mismatches",
                value:
                  lines.mismatches > 0 ? (
                    <span className="text-danger-ink">
                      {countOf(lines.mismatches, "line")}: recorded base differs from the fee rule
                    </span>
                  ) : (
                    "None"
                  ),
              },
              {
                label: "Lines with an attribution reason",
                value:
                  lines.unavailable > 0 ? (
                    <span className="text-danger-ink">{formatCount(lines.unavailable)}</span>
                  ) : (
                    "None"
                  ),
              },
              { label: "Reversals in this window", value: formatCount(reversalCounts.total) },
              { label: "Netting to zero in this window", value: formatCount(reversalCounts.netsToZero) },
            ]}
          />
          <p className="mt-2 text-xs text-ink-muted">
            A mismatch does not change the attributed amount: the service pays on the figure recorded at settlement.
          </p>
        </Card>
      </div>

      <ReversalList reversals={reversals} total={reversalCounts.total} />

      <EvidenceLines
        lines={lines}
        linesHref={`${href}/recipients/${playerId}`}
        mismatchesOnly={mismatchesOnly}
        page={page}
        pages={pages}
        linkFor={linkFor}
      />
    </NoticeProvider>
  );
}

/** What an open flag stops, by the statement's state: approval before it, a payment file after it for some. */
function flagEffect(state: string, flag: string, batchStatus: string | undefined): string {
  if (state === "draft" || (state === "held" && batchStatus === "draft")) return "blocks approval";
  if (state === "held") return "blocks its release";
  if (stopsPaymentByHand(flag) && (state === "approved" || state === "returned"))
    return "stops its payment, by file or by hand";
  if (isPaymentBar(flag) && (state === "approved" || state === "returned")) return "keeps it out of payment files";
  return "raised after approval";
}
