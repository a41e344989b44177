import { recordTitle } from "@/app/_components/shell/record-title";
import type { Metadata } from "next";
import { HeadCells, MoneyTd } from "@/app/_components/table/columns";
import { notFound } from "next/navigation";
import { Badge } from "@/app/_components/ui/badge";
import { Card } from "@/app/_components/ui/card";
import { DateTime } from "@/app/_components/ui/date-time";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Money } from "@/app/_components/ui/money";
import { PageHeader } from "@/app/_components/ui/page-header";
import { Stat, StatGroup } from "@/app/_components/ui/stat";
import { TextLink } from "@/app/_components/ui/text-link";
import { RowTh, SimpleTable, Td, Tr } from "@/app/_components/table/table";
import { getDb } from "@/db";
import { listRecipientWindows, listStatementEvents } from "@/db/queries/payouts";
import { requirePageRole } from "@/lib/auth/session";
import { resolveSelectedGame } from "@/lib/games/games";
import { countOf } from "@/lib/format";
import { formatUsd, money } from "@/lib/money";
import { checkLedgerInvariant } from "@/lib/payouts/invariant";
import {
  iteratePayoutStatements,
  type LedgerEntryKind,
  listLedgerEntries,
  type PayoutStatement,
} from "@/lib/payouts/ledger";
import { listPayoutBatches } from "@/lib/payouts/statements";
import { windowHref, windowLabel } from "@/lib/payouts/window-key";
import { parseInstant } from "@/lib/time";
import { stateLabel } from "@/app/_components/payouts/flag-badges";
import { PayoutProfileSection } from "./payout-profile";
import { getProfile } from "@/db/queries/profiles";

/** The statement events the History card lists, the latest first (it says when there are more). */
const HISTORY_SHOWN = 100;

export async function generateMetadata({ params }: { params: Promise<{ playerId: string }> }): Promise<Metadata> {
  return recordTitle("Recipient", (await params).playerId);
}

const KIND_LABELS: Record<LedgerEntryKind, string> = {
  accrual: "Accrual (gross attributed)",
  reversal: "Reversal",
  carry_in: "Carried in",
  carry_out: "Carried forward (negative)",
  rollover: "Rolled over (under minimum)",
  payment: "Payment",
  payment_returned: "Payment returned (owed again)",
  payment_undone: "Payment undone, recorded by mistake (owed again)",
};

function toWindow(start: string, end: string) {
  return { startMs: parseInstant(start) ?? 0, endMs: parseInstant(end) ?? 0 };
}

export default async function RecipientPage({ params }: { params: Promise<{ playerId: string }> }) {
  const user = await requirePageRole("viewer");
  const db = getDb();
  const game = await resolveSelectedGame(db, user);
  const { playerId: raw } = await params;
  if (!game || !/^\d{1,15}$/.test(raw)) notFound();
  const playerId = Number(raw);
  const statements: PayoutStatement[] = [];
  for await (const s of iteratePayoutStatements(db, { gameId: game.id, recipientPlayerId: playerId })) {
    if (s.batchStatus !== "discarded") statements.push(s);
  }
  const [windows, entries, events, invariant, batches] = await Promise.all([
    listRecipientWindows(db, { gameId: game.id, recipientPlayerId: playerId }),
    listLedgerEntries(db, { gameId: game.id, recipientPlayerId: playerId }),
    listStatementEvents(db, { gameId: game.id, recipientPlayerId: playerId, limit: HISTORY_SHOWN + 1 }),
    checkLedgerInvariant(db, { gameId: game.id, recipientPlayerId: playerId }),
    listPayoutBatches(db, { gameId: game.id }),
  ]);
  // A recipient with a payout profile and nothing earned yet (details imported ahead) has a page: its changes are
  // reviewed there.
  if (statements.length === 0 && windows.length === 0 && !(await getProfile(db, { gameId: game.id, playerId })))
    notFound();
  const latest = windows[0];
  const name = latest?.playerName ?? statements.at(-1)?.playerName ?? null;
  const email = latest?.playerEmail ?? statements.at(-1)?.playerEmail ?? null;
  const row = invariant.rows[0];
  const keyOf = (w: { startMs: number; endMs: number }) => `${isoSeconds(w.startMs)}|${isoSeconds(w.endMs)}`;
  const batchWindows = new Set(statements.map((s) => `${s.windowStart}|${s.windowEnd}`));
  // A live batch of the window, built on an earlier version that did not name this recipient: not "not yet reviewed".
  const liveBatches = new Map(batches.map((b) => [`${b.windowStart}|${b.windowEnd}`, b]));
  const notInBatch = windows.filter((w) => !batchWindows.has(keyOf(w.window)));
  const unprepared = notInBatch.filter((w) => !liveBatches.has(keyOf(w.window)));
  const leftOut = notInBatch.flatMap((w) => {
    const batch = liveBatches.get(keyOf(w.window));
    return batch ? [{ ...w, batchVersion: batch.snapshotVersion }] : [];
  });
  // In time (instants are written with their milliseconds only when there are some: compared as times, not text).
  const sortedEntries = [...entries].sort(
    (a, b) => Date.parse(a.at) - Date.parse(b.at) || a.entryId.localeCompare(b.entryId),
  );
  // A returned statement's latest return, undone (recorded paid by mistake) or not, from its ledger entries.
  const undone = new Set<string>();
  for (const e of sortedEntries) {
    if (e.kind === "payment_undone") undone.add(e.statementId);
    else if (e.kind === "payment_returned") undone.delete(e.statementId);
  }
  let running = money("0");
  const withBalance = sortedEntries.map((e) => {
    running = running.plus(e.amountUsd);
    return { ...e, balance: formatUsd(running) };
  });

  return (
    <>
      <PageHeader
        title={name ?? `Player ${playerId}`}
        breadcrumbs={[{ label: "Recipients", href: "/recipients" }]}
        meta={latest && !latest.resolved ? <Badge tone="danger">Unresolved recipient</Badge> : undefined}
        description={
          <>
            Player <span className="font-mono">#{playerId}</span>
            {email ? `, ${email}` : ""}. Every statement, carried balance and payment across windows.
          </>
        }
      />
      <StatGroup label="Ledger" className="mb-2">
        <Stat
          label="Paid"
          value={<Money value={row?.paidUsd ?? "0.00"} currency="USD" />}
          hint={`${countOf(row?.windows ?? 0, "window")} closed`}
        />
        <Stat
          label="Carried"
          value={<Money value={row?.carriedUsd ?? "0.00"} currency="USD" />}
          hint="Out of closed statements into later ones; while that later statement is open, also in the open balance"
        />
        <Stat
          label="Net attributed, windows paid from"
          value={<Money value={row?.netAttributedUsd ?? "0.00"} currency="USD" />}
        />
        <Stat
          label="Open balance (approved, held)"
          value={<Money value={formatUsd(running)} currency="USD" />}
          hint="Sum of the ledger entries"
        />
      </StatGroup>
      <p
        className={`mb-5 text-sm ${row && !row.ok ? "font-medium text-danger-ink" : "text-ink-muted"}`}
        role={row && !row.ok ? "alert" : undefined}
      >
        {row
          ? row.ok
            ? "Check passed: paid + carried = net attributed over the windows paid from."
            : `Check failed: ${row.problems.join("; ")}`
          : "No closed statement yet."}
      </p>

      <PayoutProfileSection db={db} gameId={game.id} playerId={playerId} user={user} />
      <Card title="Statements by window" flush className="mb-5">
        {statements.length === 0 ? (
          <p className="p-4 text-ink-muted">No payout batch includes this recipient yet.</p>
        ) : (
          <SimpleTable
            caption="Statements of this recipient"
            frame="none"
            dense
            head={
              <HeadCells
                columns={[
                  "Window",
                  ["Net attributed", "right"],
                  ["Carried in", "right"],
                  ["Payable", "right"],
                  ["Carried forward", "right"],
                  "State",
                  "Payment",
                ]}
              />
            }
          >
            {[...statements].reverse().map((s) => {
              const w = toWindow(s.windowStart, s.windowEnd);
              const st = stateLabel(s.state, undone.has(s.id));
              return (
                <Tr key={s.id}>
                  <RowTh>
                    <TextLink href={`${windowHref(w)}/recipients/${playerId}`}>{windowLabel(w)}</TextLink>
                    <span className="block text-xs text-ink-muted">
                      batch {s.batchStatus}, snapshot v{s.snapshotVersion}
                    </span>
                  </RowTh>
                  <MoneyTd value={s.netAttributedUsd} />
                  <MoneyTd value={s.carriedInUsd} />
                  <MoneyTd value={s.payableUsd} className="font-medium" />
                  <MoneyTd value={s.carryOutUsd} />
                  <Td>
                    <Badge tone={st.tone}>{st.label}</Badge>
                    {s.holdReason ? <span className="block text-xs text-ink-muted">{s.holdReason}</span> : null}
                  </Td>
                  <Td className="text-xs">
                    {s.state === "paid" ? (
                      <>
                        <Money value={s.paidAmountUsd ?? "0.00"} /> on {s.paidOn},{" "}
                        <span className="font-mono">{s.paymentReference}</span>
                      </>
                    ) : null}
                  </Td>
                </Tr>
              );
            })}
          </SimpleTable>
        )}
      </Card>

      {unprepared.length > 0 ? (
        <Card title="Snapshotted windows without a batch (not yet reviewed)" flush className="mb-5">
          <ul className="divide-y divide-line text-sm">
            {unprepared.map((w) => (
              <li key={w.snapshotId} className="flex flex-wrap gap-x-3 px-4 py-2">
                <TextLink href={`${windowHref(w.window)}/recipients/${playerId}`}>{windowLabel(w.window)}</TextLink>
                <span>
                  net <Money value={w.netAttributedUsd} currency="USD" /> ({w.renewalCount} renewals, snapshot v
                  {w.snapshotVersion})
                  {w.owed && w.owed.deductedBeforeUsd !== "0.00" ? (
                    <>
                      ; owed <Money value={w.owed.usd} currency="USD" />:{" "}
                      <Money value={w.owed.deductedBeforeUsd} currency="USD" /> of its reversals was deducted already in
                      another window's batch
                    </>
                  ) : null}
                </span>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}

      {leftOut.length > 0 ? (
        <Card
          title="Windows whose batch leaves this recipient out"
          description="The batch was built on a snapshot version that did not name them; a newer one does."
          flush
          className="mb-5"
        >
          <ul className="divide-y divide-line text-sm">
            {leftOut.map((w) => (
              <li key={w.snapshotId} className="flex flex-wrap gap-x-3 px-4 py-2">
                <TextLink href={windowHref(w.window)}>{windowLabel(w.window)}</TextLink>
                <span>
                  net <Money value={w.netAttributedUsd} currency="USD" /> in snapshot v{w.snapshotVersion}; the batch
                  pays from v{w.batchVersion}
                </span>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}

      <Card
        title="Ledger entries"
        description="Positive raises what is owed to the recipient; negative lowers it. Approved and paid batches only."
        flush
        className="mb-5"
      >
        {withBalance.length === 0 ? (
          <p className="p-4 text-ink-muted">
            No entries yet: they appear when a batch including this recipient is approved.
          </p>
        ) : (
          <SimpleTable
            caption="Ledger entries with the running balance"
            frame="none"
            dense
            head={
              <HeadCells
                columns={[
                  "When",
                  "Entry",
                  "Window",
                  ["Amount (USD)", "right"],
                  ["Balance (USD)", "right"],
                  "Reference",
                ]}
              />
            }
          >
            {withBalance.map((e) => (
              <Tr key={e.entryId}>
                <Td>
                  <DateTime value={e.at} focusable={false} />
                </Td>
                <RowTh>{KIND_LABELS[e.kind]}</RowTh>
                <Td>{windowLabel(toWindow(e.windowStart, e.windowEnd))}</Td>
                <MoneyTd value={e.amountUsd} />
                <MoneyTd value={e.balance} className="font-medium" />
                <Td className="font-mono text-xs text-ink-muted">{e.reference ?? ""}</Td>
              </Tr>
            ))}
          </SimpleTable>
        )}
      </Card>

      <Card title="History" flush>
        {events.length > HISTORY_SHOWN ? (
          <p className="px-4 pt-3 text-sm text-ink-muted">
            The latest {HISTORY_SHOWN} events are shown; earlier ones are kept.
          </p>
        ) : null}
        {events.length === 0 ? (
          <EmptyState title="No history yet" className="border-0" />
        ) : (
          <ol className="divide-y divide-line text-sm">
            {events.slice(0, HISTORY_SHOWN).map((e, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a static, server-rendered list; its rows carry no id.
              <li key={`${e.at.toISOString()}-${i}`} className="flex flex-wrap gap-x-3 px-4 py-2">
                <DateTime value={e.at.toISOString()} focusable={false} />
                <span className="font-medium">
                  {e.detail.undone === true ? "payment undone" : e.kind.replace(/_/g, " ")}
                </span>
                <span className="text-ink-muted">→ {stateLabel(e.stateAfter, e.detail.undone === true).label}</span>
                {e.actorEmail ? <span className="text-ink-muted">by {e.actorEmail}</span> : null}
                {typeof e.detail.reason === "string" ? <span>“{e.detail.reason}”</span> : null}
                {typeof e.detail.reference === "string" ? (
                  <span className="font-mono text-xs">{e.detail.reference}</span>
                ) : null}
              </li>
            ))}
          </ol>
        )}
      </Card>
    </>
  );
}

/** An instant as the batch list keys its windows: ISO 8601 without milliseconds. */
function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(".000Z", "Z");
}
