import { randomUUID } from "node:crypto";
import type { ActingAs, Actor } from "@/core/actor";
import type { Db } from "@/db";
import type { WebhookEventStatus } from "@/db/tables/webhooks";
import { formatExact, formatUsd, money, sumMoney } from "@/lib/money";
import { monthWindow, type TimeWindow } from "@/lib/time";

/**
 * Snapshots written straight into the published tables, so that a test states the figures it pays from: a recipient's
 * gross and reversed attributed per window (a reversal of an earlier month's renewal shows up in the window of the
 * refund, as the service reports it).
 */

export const GAME = "payout-game";

export async function insertGame(db: Db, id = GAME): Promise<void> {
  await db
    .insertInto("game")
    .values({
      id,
      name: "Payout Game",
      environment: "sandbox",
      base_url: "http://127.0.0.1:9",
      secret_sealed: "sealed",
      secret_mask: "gs_…test",
      settings: JSON.stringify({}),
      updated_at: new Date(),
    })
    .execute();
}

export type FixtureRecipient = {
  id: number;
  gross: string;
  reversed?: string;
  resolved?: boolean;
  name?: string;
  /** A renewal line of this recipient carrying an attribution reason. */
  unavailableLine?: boolean;
  /** The mint order of the recipient's renewal line (what a chargeback names); none when absent. */
  mintOrderId?: string;
};

export type FixtureSnapshot = {
  window: TimeWindow | string;
  recipients: FixtureRecipient[];
  unattributed?: Record<string, number>;
  /** Drifted from the version before (with this many differences, when a number); "reproduced" matched it. */
  drift?: boolean | number | "reproduced";
  closed?: boolean;
  /** When the pull began reading (stale marks newer than this make it stale). */
  fetchStartedAt?: Date;
};

export async function insertSnapshot(
  db: Db,
  input: FixtureSnapshot,
  gameId = GAME,
): Promise<{ id: string; version: number; window: TimeWindow }> {
  const window = typeof input.window === "string" ? monthWindow(input.window) : input.window;
  const previous = await db
    .selectFrom("snapshot")
    .select((eb) => eb.fn.max("version").as("v"))
    .where("game_id", "=", gameId)
    .where("window_start", "=", new Date(window.startMs))
    .where("window_end", "=", new Date(window.endMs))
    .executeTakeFirst();
  const version = Number(previous?.v ?? 0) + 1;
  const pullId = randomUUID();
  const id = randomUUID();
  const started = input.fetchStartedAt ?? new Date(window.endMs + 3_600_000);
  await db
    .insertInto("snapshot_pull")
    .values({
      id: pullId,
      game_id: gameId,
      window_start: new Date(window.startMs),
      window_end: new Date(window.endMs),
      status: "complete",
      via: "test",
      requested_by_id: null,
      requested_by_email: null,
      snapshot_id: id,
    })
    .execute();
  const gross = sumMoney(input.recipients.map((r) => r.gross));
  const reversed = sumMoney(input.recipients.map((r) => r.reversed ?? "0"));
  const zero = "0.00";
  await db
    .insertInto("snapshot")
    .values({
      id,
      game_id: gameId,
      window_start: new Date(window.startMs),
      window_end: new Date(window.endMs),
      version,
      pull_id: pullId,
      taken_by_email: null,
      fetch_started_at: started,
      fetch_finished_at: started,
      service_generated_at: started,
      window_closed: input.closed ?? true,
      built_from: "single",
      page_count: 1,
      request_count: 1,
      rate_limited: 0,
      retries: 0,
      duration_ms: 1,
      sub_window_count: 0,
      line_count: input.recipients.length,
      reversal_count: 0,
      refund_event_count: 0,
      renewals_settled: input.recipients.length,
      settled_gross_usd: formatUsd(gross.times(5)),
      invo_fee_usd: zero,
      partner_revenue_settled_usd: zero,
      partner_revenue_reversed_usd: zero,
      partner_revenue_usd: zero,
      renewals_with_attribution: input.recipients.length,
      renewals_without_attribution: Object.values(input.unattributed ?? {}).reduce((a, b) => a + b, 0),
      unattributed_reasons: JSON.stringify({
        no_revenue_share_configured: 0,
        spend_order_not_found: 0,
        attribution_not_recorded: 0,
        attribution_malformed: 0,
        ...input.unattributed,
      }),
      gross_attributed_usd: formatUsd(gross),
      reversed_attributed_usd: formatUsd(reversed),
      net_attributed_usd: formatUsd(gross.minus(reversed)),
      renewals_settled_then_fully_reversed: 0,
      refund_events_in_window: 0,
      reversals_without_receipts: 0,
      recipient_count: input.recipients.length,
      report: JSON.stringify({}),
      attribution_notice: JSON.stringify({ settled_by_invo: false }),
      checks: JSON.stringify([]),
      build_notes: JSON.stringify([]),
      compared_to_snapshot_id: null,
      drift_status: input.drift === "reproduced" ? "reproduced" : input.drift ? "drift" : "first_version",
      drift_count: typeof input.drift === "number" ? input.drift : 0,
    })
    .execute();
  if (input.recipients.length > 0) {
    await db
      .insertInto("snapshot_recipient")
      .values(
        input.recipients.map((r, index) => ({
          snapshot_id: id,
          recipient_player_id: r.id,
          service_rank: index + 1,
          resolved: r.resolved ?? true,
          player_email: r.resolved === false ? null : `r${r.id}@example.test`,
          player_name: r.resolved === false ? null : (r.name ?? `Recipient ${r.id}`),
          identity_id: null,
          renewal_count: 1,
          subscription_count: 1,
          reversal_count: money(r.reversed ?? "0").isZero() ? 0 : 1,
          // As the service reports them, to whatever places they carry.
          gross_attributed_usd: formatExact(money(r.gross)),
          reversed_attributed_usd: formatExact(money(r.reversed ?? "0")),
          net_attributed_usd: formatExact(money(r.gross).minus(r.reversed ?? "0")),
          first_paid_at: new Date(window.startMs),
          last_paid_at: new Date(window.startMs),
        })),
      )
      .execute();
  }
  let periodId = Math.floor(window.startMs / 1000);
  for (const r of input.recipients) {
    periodId += 1;
    await db
      .insertInto("snapshot_line")
      .values({
        snapshot_id: id,
        period_id: periodId,
        recipient_player_id: r.id,
        subscription_id: `SUB_1700000000_${String(r.id).padStart(8, "0")}`,
        period_seq: 1,
        item_id: "pass",
        item_name: "Pass",
        status: "paid",
        period_start: new Date(window.startMs),
        period_end: new Date(window.startMs + 86_400_000),
        paid_at: new Date(window.startMs),
        amount_usd: "10.00",
        invo_fee_usd: "1.00",
        partner_revenue_usd: "9.00",
        partner_revenue_settled_usd: "9.00",
        partner_revenue_reversed_usd: "0.00",
        partner_leg_reversed: false,
        percent_at_renewal: "20.00",
        base_usd: "9.00",
        attributed_amount_usd: formatUsd(r.gross),
        attribution_unavailable_reason: r.unavailableLine ? "attribution_malformed" : null,
        transaction_id: `tx_${periodId}`,
        mint_order_id: r.mintOrderId ?? null,
        funding: JSON.stringify(null),
        refund: JSON.stringify(null),
        reconciliation: JSON.stringify(null),
      })
      .execute();
  }
  return { id, version, window };
}

let userSeq = 0;
/** The person acting, through the web app (as the pages call the payout workflow). */
export function web(person: Actor): ActingAs {
  return { actor: person, via: "web" };
}

export function actor(label = "finance"): { id: string; email: string } {
  userSeq += 1;
  return { id: `user-${label}-${userSeq}`, email: `${label}${userSeq}@payout-desk.test` };
}

/**
 * A `purchase.disputed` delivery of the game stored as received and left in `status` (waiting for a worker, failed,
 * processed), with the event's `data`: its row id.
 */
export async function storeDisputeEvent(
  db: Db,
  data: Record<string, unknown>,
  status: WebhookEventStatus,
  occurredAt = "2026-10-03T00:00:00Z",
): Promise<string> {
  const eventId = `evt_dispute_${randomUUID()}`;
  const body = JSON.stringify({
    event_id: eventId,
    event_type: "purchase.disputed",
    created_at: occurredAt,
    tenant_id: GAME,
    data,
  });
  const row = await db
    .insertInto("webhook_event")
    .values({
      game_id: GAME,
      idempotency_key: `idem_${eventId}`,
      event_id: eventId,
      event_type: "purchase.disputed",
      signed_with: "current",
      signature_timestamp: new Date(),
      occurred_at: new Date(occurredAt),
      body,
      status,
      received_at: new Date(),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return String(row.id);
}
