import { randomUUID } from "node:crypto";
import type { Db } from "@/db";
import { money } from "@/core/money";
import { saveGame } from "@/lib/games/games";

/**
 * Published snapshots and payout batches written straight into the tables, so that export tests control every
 * value (awkward names, negative and long decimals) without going through the service.
 */

export type RecipientInput = {
  id: number;
  name: string | null;
  email: string | null;
  resolved?: boolean;
  net?: string;
  /** Reversed attributed (0.00 when not given): gross is net plus this. */
  reversed?: string;
};

export type LineInput = {
  periodId: number;
  recipientId: number;
  subscriptionId?: string;
  itemName?: string;
  paidAt: string;
  amountUsd: string;
  attributedUsd: string | null;
  percent?: string;
  reason?: string | null;
  /** The card charge's order (a dispute names it); none for a wallet renewal. */
  mintOrderId?: string;
};

export type ReversalInput = {
  periodId: number;
  recipientId: number;
  reversedAttributedUsd: string;
  basis?: "refund_receipts" | "period_row";
  note?: string | null;
  /** The period's latest refund as the service reports it (any window); the last event's time when not given. */
  latestRefundAt?: string;
  events: {
    refundedAt: string;
    amountUsd: string;
    before: string;
    after: string;
    reversedAttributedUsd: string;
    full: boolean;
  }[];
};

export async function addGame(db: Db, id: string): Promise<void> {
  await saveGame(
    db,
    {
      id,
      name: `Game ${id}`,
      environment: "sandbox",
      baseUrl: "http://127.0.0.1:9",
      secret: `gs_test_${id}_secret`,
      webhookSecrets: [],
    },
    { replace: false, as: { actor: null, via: "cli" } },
  );
}

export async function insertSnapshot(
  db: Db,
  input: {
    gameId: string;
    start: string;
    end: string;
    version?: number;
    recipients: RecipientInput[];
    lines: LineInput[];
    reversals?: ReversalInput[];
  },
): Promise<string> {
  const pullId = randomUUID();
  const snapshotId = randomUUID();
  await db
    .insertInto("snapshot_pull")
    .values({
      id: pullId,
      game_id: input.gameId,
      window_start: input.start,
      window_end: input.end,
      status: "complete",
      via: "test",
    })
    .execute();
  const reversals = input.reversals ?? [];
  await db
    .insertInto("snapshot")
    .values({
      id: snapshotId,
      game_id: input.gameId,
      window_start: input.start,
      window_end: input.end,
      version: input.version ?? 1,
      pull_id: pullId,
      taken_by_email: null,
      fetch_started_at: input.end,
      fetch_finished_at: input.end,
      service_generated_at: input.end,
      window_closed: true,
      built_from: "single",
      page_count: 1,
      request_count: 1,
      rate_limited: 0,
      retries: 0,
      duration_ms: 1,
      sub_window_count: 0,
      line_count: input.lines.length,
      reversal_count: reversals.length,
      refund_event_count: reversals.reduce((n, r) => n + r.events.length, 0),
      renewals_settled: input.lines.length,
      settled_gross_usd: "0.00",
      invo_fee_usd: "0.00",
      partner_revenue_settled_usd: "0.00",
      partner_revenue_reversed_usd: "0.00",
      partner_revenue_usd: "0.00",
      renewals_with_attribution: input.lines.length,
      renewals_without_attribution: 0,
      unattributed_reasons: "{}",
      gross_attributed_usd: "0.00",
      reversed_attributed_usd: "0.00",
      net_attributed_usd: "0.00",
      renewals_settled_then_fully_reversed: 0,
      refund_events_in_window: 0,
      reversals_without_receipts: 0,
      recipient_count: input.recipients.length,
      report: "{}",
      attribution_notice: "{}",
      checks: "[]",
      build_notes: "[]",
      drift_status: "first_version",
    })
    .execute();
  for (const [rank, r] of input.recipients.entries()) {
    await db
      .insertInto("snapshot_recipient")
      .values({
        snapshot_id: snapshotId,
        recipient_player_id: r.id,
        service_rank: rank + 1,
        resolved: r.resolved ?? true,
        player_email: r.email,
        player_name: r.name,
        identity_id: null,
        renewal_count: 1,
        subscription_count: 1,
        reversal_count: reversals.filter((v) => v.recipientId === r.id).length,
        gross_attributed_usd: money(r.net ?? "0.00")
          .plus(r.reversed ?? "0.00")
          .toFixed(2),
        reversed_attributed_usd: r.reversed ?? "0.00",
        net_attributed_usd: r.net ?? "0.00",
      })
      .execute();
  }
  // In chunks: one statement takes at most 65,535 parameters.
  for (let from = 0; from < input.lines.length; from += 1_000) {
    await db
      .insertInto("snapshot_line")
      .values(
        input.lines.slice(from, from + 1_000).map((l) => ({
          snapshot_id: snapshotId,
          period_id: l.periodId,
          recipient_player_id: l.recipientId,
          subscription_id: l.subscriptionId ?? `SUB_1700000000_${String(l.periodId).padStart(8, "0")}`,
          period_seq: 1,
          item_id: "pass",
          item_name: l.itemName ?? "Pass",
          status: "paid",
          period_start: l.paidAt,
          period_end: input.end,
          paid_at: l.paidAt,
          amount_usd: l.amountUsd,
          invo_fee_usd: "1.00",
          partner_revenue_usd: "9.00",
          partner_revenue_settled_usd: "9.00",
          partner_revenue_reversed_usd: "0.00",
          partner_leg_reversed: false,
          percent_at_renewal: l.attributedUsd === null ? null : (l.percent ?? "20.00"),
          base_usd: l.attributedUsd === null ? null : "9.00",
          attributed_amount_usd: l.attributedUsd,
          attribution_unavailable_reason: l.reason ?? null,
          transaction_id: `tx_${l.periodId}`,
          mint_order_id: l.mintOrderId ?? null,
          funding: "null",
          refund: "null",
          reconciliation: JSON.stringify({ checked: true, base_matches_settled_fee: true }),
        })),
      )
      .execute();
  }
  for (const r of reversals) {
    await db
      .insertInto("snapshot_reversal")
      .values({
        snapshot_id: snapshotId,
        period_id: r.periodId,
        recipient_player_id: r.recipientId,
        subscription_id: `SUB_1700000000_${String(r.periodId).padStart(8, "0")}`,
        period_seq: 1,
        status: "refunded",
        paid_at: input.start,
        settled_in_this_window: true,
        amount_usd: "10.00",
        originally_attributed_usd: "1.80",
        refunded_to_date_usd: r.events.at(-1)?.after ?? "10.00",
        latest_refund_at: r.latestRefundAt ?? r.events.at(-1)?.refundedAt ?? input.start,
        reversed_attributed_usd: r.reversedAttributedUsd,
        partner_revenue_reversed_usd: "9.00",
        reversal_basis: r.basis ?? "refund_receipts",
        nets_to_zero_in_window: false,
        note: r.note ?? null,
        event_count: r.events.length,
      })
      .execute();
    for (const [seq, e] of r.events.entries()) {
      await db
        .insertInto("snapshot_refund_event")
        .values({
          snapshot_id: snapshotId,
          period_id: r.periodId,
          seq: seq + 1,
          refunded_at: e.refundedAt,
          refunded_amount_usd: e.amountUsd,
          cumulative_refunded_before_usd: e.before,
          cumulative_refunded_after_usd: e.after,
          reversed_attributed_usd: e.reversedAttributedUsd,
          partner_revenue_reversed_usd: "4.50",
          partner_revenue_reversal_basis: "clawback",
          is_full_refund: e.full,
        })
        .execute();
    }
  }
  return snapshotId;
}

export type StatementInput = {
  recipientId: number;
  name: string | null;
  email: string | null;
  gross: string;
  reversed: string;
  carriedIn?: string;
  minPayout?: string;
  state: "draft" | "approved" | "held" | "paid" | "carried";
  holdReason?: string;
  paymentReference?: string;
  flags?: string[];
};

/**
 * A payout batch on a snapshot with one statement per input. Figures follow the statement rule: available = net +
 * carried in; payable = available when at least the minimum, else 0; carry out = available − payable.
 */
export async function insertBatch(
  db: Db,
  input: {
    gameId: string;
    snapshotId: string;
    status: "draft" | "approved" | "paid";
    statements: StatementInput[];
    minPayout?: string;
  },
): Promise<{ batchId: string; statementIds: string[] }> {
  const { Money } = await import("@/lib/money");
  const snapshot = await db
    .selectFrom("snapshot")
    .selectAll()
    .where("id", "=", input.snapshotId)
    .executeTakeFirstOrThrow();
  const batchId = randomUUID();
  const approved = input.status !== "draft";
  await db
    .insertInto("payout_batch")
    .values({
      id: batchId,
      game_id: input.gameId,
      window_start: snapshot.window_start,
      window_end: snapshot.window_end,
      snapshot_id: snapshot.id,
      snapshot_version: snapshot.version,
      status: input.status,
      min_payout_usd: input.minPayout ?? "10.00",
      two_person_rule: true,
      prepared_by_id: "u1",
      prepared_by_email: "preparer@payout-desk.test",
      approved_by_id: approved ? "u2" : null,
      approved_by_email: approved ? "approver@payout-desk.test" : null,
      approved_at: approved ? "2026-04-02T09:15:00Z" : null,
      paid_at: input.status === "paid" ? "2026-04-03T10:00:00Z" : null,
    })
    .execute();
  const statementIds: string[] = [];
  for (const s of input.statements) {
    const id = randomUUID();
    statementIds.push(id);
    const net = new Money(s.gross).minus(s.reversed);
    const available = net.plus(s.carriedIn ?? "0");
    const payable = available.gte(input.minPayout ?? "10.00") ? available : new Money(0);
    const paid = s.state === "paid";
    await db
      .insertInto("payout_statement")
      .values({
        id,
        batch_id: batchId,
        game_id: input.gameId,
        recipient_player_id: s.recipientId,
        in_snapshot: true,
        resolved: s.name !== null,
        player_email: s.email,
        player_name: s.name,
        renewal_count: 1,
        subscription_count: 1,
        reversal_count: s.reversed === "0.00" ? 0 : 1,
        gross_attributed_usd: s.gross,
        reversed_attributed_usd: s.reversed,
        net_attributed_usd: net.toFixed(2),
        carried_in_usd: new Money(s.carriedIn ?? "0").toFixed(2),
        available_usd: available.toFixed(2),
        payable_usd: payable.toFixed(2),
        carry_out_usd: available.minus(payable).toFixed(2),
        recipient_flags: JSON.stringify(s.flags ?? []),
        state: s.state,
        hold_reason: s.state === "held" ? (s.holdReason ?? "Waiting for tax form") : null,
        state_changed_by_email: "approver@payout-desk.test",
        paid_amount_usd: paid ? payable.toFixed(2) : null,
        paid_on: paid ? "2026-04-03" : null,
        payment_method: paid ? "bank_transfer" : null,
        payment_reference: paid ? (s.paymentReference ?? `PAY-${s.recipientId}`) : null,
        closed_at: paid || s.state === "carried" ? "2026-04-03T10:00:00Z" : null,
      })
      .execute();
  }
  return { batchId, statementIds };
}

/** A game with an empty March 2026 snapshot and a batch of `status` on it, one statement per input. */
export async function gameWithBatch(
  db: Db,
  input: { gameId: string; status: "draft" | "approved" | "paid"; statements: StatementInput[] },
): Promise<{ batchId: string; statementIds: string[] }> {
  await addGame(db, input.gameId);
  const snapshotId = await insertSnapshot(db, {
    gameId: input.gameId,
    start: "2026-03-01T00:00:00Z",
    end: "2026-04-01T00:00:00Z",
    recipients: [],
    lines: [],
  });
  return insertBatch(db, { gameId: input.gameId, snapshotId, status: input.status, statements: input.statements });
}
