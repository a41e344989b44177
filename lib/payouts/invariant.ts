import "server-only";
import type { Db } from "@/db";
import { listPaymentStates, type PaymentStateRow } from "@/db/queries/payment-flow";
import { listCarryLinksOfGame, listClosedStatementsWithSnapshotNet } from "@/db/queries/payout-ledger";
import { formatUsd, money, type Money, netInCents } from "@/lib/money";
import { countOf } from "@/lib/format";

/**
 * The ledger invariant, checkable at any time: for every recipient,
 *
 *   paid + carried = sum of net attributed over the windows paid from
 *
 * where "windows paid from" are the windows of the recipient's closed statements (paid, or closed with nothing to pay),
 * "paid" is what those statements paid, and "carried" is the balance carried out of them that no closed statement has
 * taken in yet. Each side is read from a different place: net attributed from the snapshot rows the batches were built
 * on (not the statement's copy; a reversal reported again adds back the part deducted in another window, which the
 * statement records), payments from the statements, carries from the carry links. Along the way it checks
 * that each statement adds up and that every carry link moves exactly what its statement carried out.
 *
 * Payment files and returns: a statement in payment is open (unsettled) in exactly one live file, the one it
 * names, for exactly its payable; no other statement is open in a live file; every payment that came back returned
 * exactly the payable, and a returned statement has such a return. A payment that came back is not "paid": only
 * the statement's current payment counts, so a return followed by a re-payment counts once.
 */
export type InvariantRow = {
  recipientPlayerId: number;
  windows: number;
  netAttributedUsd: string;
  paidUsd: string;
  carriedUsd: string;
  ok: boolean;
  problems: string[];
};

export type InvariantReport = { ok: boolean; recipients: number; violations: InvariantRow[]; rows: InvariantRow[] };

export async function checkLedgerInvariant(
  db: Db,
  params: { gameId: string; recipientPlayerId?: number },
): Promise<InvariantReport> {
  const closed = await listClosedStatementsWithSnapshotNet(db, params);
  const closedIds = new Set(closed.map((s) => s.id));
  const links = closed.length === 0 ? [] : await listCarryLinksOfGame(db, params);
  const linkFrom = new Map(links.map((l) => [l.from_statement_id, l]));
  const linksInto = new Map<string, Money>();
  for (const l of links)
    linksInto.set(l.to_statement_id, (linksInto.get(l.to_statement_id) ?? money("0")).plus(l.amount_usd));

  type Acc = { windows: number; net: Money; paid: Money; carried: Money; problems: string[] };
  const byRecipient = new Map<string, Acc>();
  const accOf = (recipient: string): Acc => {
    const known = byRecipient.get(recipient);
    if (known) return known;
    const acc: Acc = { windows: 0, net: money("0"), paid: money("0"), carried: money("0"), problems: [] };
    byRecipient.set(recipient, acc);
    return acc;
  };
  for (const s of closed) {
    const acc = accOf(s.recipient_player_id);
    acc.windows += 1;
    // Net attributed as the snapshot reported it, in cents as a statement takes it (netInCents); a recipient absent
    // from the snapshot earned nothing there. A reversal reported again is deducted once: what another window's
    // batch deducted already is added back.
    const snapshotNet =
      s.snapshot_gross_usd === null || s.snapshot_reversed_usd === null
        ? money("0")
        : netInCents(s.snapshot_gross_usd, s.snapshot_reversed_usd).plus(s.reversed_before_usd);
    if (s.snapshot_net_usd === null && s.in_snapshot)
      acc.problems.push(`statement ${s.id}: recipient missing from its snapshot`);
    if (!snapshotNet.equals(s.net_attributed_usd))
      acc.problems.push(
        `statement ${s.id}: net ${formatUsd(s.net_attributed_usd)} ` +
          `differs from the snapshot's ${formatUsd(snapshotNet)}`,
      );
    acc.net = acc.net.plus(snapshotNet);
    const paid = s.state === "paid" ? money(s.paid_amount_usd ?? "0") : money("0");
    if (s.state === "paid" && !paid.equals(s.payable_usd))
      acc.problems.push(`statement ${s.id}: paid ${formatUsd(paid)} but payable ${formatUsd(s.payable_usd)}`);
    if (s.state === "carried" && !money(s.payable_usd).isZero())
      acc.problems.push(`statement ${s.id}: closed unpaid with a payable of ${formatUsd(s.payable_usd)}`);
    acc.paid = acc.paid.plus(paid);
    const carriedIn = linksInto.get(s.id) ?? money("0");
    if (!carriedIn.equals(s.carried_in_usd))
      acc.problems.push(
        `statement ${s.id}: carried in ${formatUsd(s.carried_in_usd)} but its links bring ${formatUsd(carriedIn)}`,
      );
    // What this statement carried out and no closed statement has taken in is still carried.
    const out = linkFrom.get(s.id);
    if (out && !money(out.amount_usd).equals(s.carry_out_usd))
      acc.problems.push(
        `statement ${s.id}: carried out ${formatUsd(s.carry_out_usd)} but its link moves ${formatUsd(out.amount_usd)}`,
      );
    if (!out || !closedIds.has(out.to_statement_id)) acc.carried = acc.carried.plus(s.carry_out_usd);
  }

  for (const s of await listPaymentStates(db, params)) {
    accOf(s.recipient_player_id).problems.push(...paymentStateProblems(s));
  }

  const rows: InvariantRow[] = [];
  for (const [recipient, acc] of byRecipient) {
    const problems = [...acc.problems];
    if (!acc.paid.plus(acc.carried).equals(acc.net)) {
      problems.push(
        `paid ${formatUsd(acc.paid)} + carried ${formatUsd(acc.carried)} ≠ net attributed ${formatUsd(acc.net)}`,
      );
    }
    rows.push({
      recipientPlayerId: Number(recipient),
      windows: acc.windows,
      netAttributedUsd: formatUsd(acc.net),
      paidUsd: formatUsd(acc.paid),
      carriedUsd: formatUsd(acc.carried),
      ok: problems.length === 0,
      problems,
    });
  }
  rows.sort((a, b) => a.recipientPlayerId - b.recipientPlayerId);
  const violations = rows.filter((r) => !r.ok);
  return { ok: violations.length === 0, recipients: rows.length, violations, rows };
}

/** What is wrong with a statement's payment files and returns (see the module comment). */
export function paymentStateProblems(s: PaymentStateRow): string[] {
  const problems: string[] = [];
  const at = `statement ${s.id}`;
  if (s.state === "in_payment") {
    if (s.live_items !== 1) problems.push(`${at}: in payment but open in ${s.live_items} live payment files`);
    else if (s.live_file_id !== s.payment_file_id) problems.push(`${at}: in payment in a file it does not name`);
    else if (!money(s.live_amount_usd ?? "0").equals(s.payable_usd))
      problems.push(`${at}: its file pays ${formatUsd(s.live_amount_usd ?? "0")}, payable ${formatUsd(s.payable_usd)}`);
  } else if (s.live_items > 0 || s.payment_file_id !== null) {
    problems.push(`${at}: ${s.state} but still open in a live payment file`);
  }
  // Each return gives back what was paid: the payable, which a statement held and then carried forward whole no
  // longer shows (its payable is 0 and all it had available is carried out).
  const paid = s.state === "carried" ? s.available_usd : s.payable_usd;
  if (!money(s.returned_usd).equals(money(paid).times(s.returns)))
    problems.push(
      `${at}: returned ${formatUsd(s.returned_usd)} over ${countOf(s.returns, "return")} of ${formatUsd(paid)}`,
    );
  if (s.state === "returned" && s.returns === 0) problems.push(`${at}: returned with no return recorded`);
  return problems;
}
