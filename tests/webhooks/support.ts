import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { updateGameAutomation } from "../../db/queries/webhooks";
import { saveGame } from "../../lib/games/games";
import { formatWindow, monthWindow } from "../../lib/time";
import { signatureHeader } from "../../lib/webhooks/signature";
import type { SnapshotLink } from "../../lib/webhooks/snapshot-link";
import type { Db } from "../../db";

/** Builds signed deliveries the way the service sends them, and calls the route handler with real Requests. */

export const CURRENT_SECRET = "whsec_test_current_1";
export const PREVIOUS_SECRET = "whsec_test_previous_1";

export type RouteHandler = (request: Request, context: { params: Promise<{ gameId: string }> }) => Promise<Response>;

export async function addGame(
  db: Db,
  id: string,
  webhookSecrets: string[] = [CURRENT_SECRET, PREVIOUS_SECRET],
): Promise<void> {
  await saveGame(
    db,
    {
      id,
      name: `Game ${id}`,
      environment: "sandbox",
      baseUrl: "http://127.0.0.1:9",
      secret: "gs_test_secret_1",
      webhookSecrets,
    },
    { replace: true, as: { actor: null, via: "cli" } },
  );
}

/** A game (addGame) with its automation: auto-refresh and each scheduled pull off unless turned on here. */
export async function addAutomatedGame(
  db: Db,
  id: string,
  on: { autoRefresh?: boolean; pullPreviousMonth?: boolean; pullCurrentMonthDaily?: boolean },
): Promise<void> {
  await addGame(db, id);
  await updateGameAutomation(db, id, {
    autoRefresh: on.autoRefresh ?? false,
    pullPreviousMonth: on.pullPreviousMonth ?? false,
    pullCurrentMonthDaily: on.pullCurrentMonthDaily ?? false,
  });
}

/**
 * A database outage for webhook events: every insert into webhook_event fails until `end()`. The trigger it adds
 * (`outage`) stays; the test drops it when done.
 */
export async function startWebhookInsertOutage(db: Db): Promise<{ end(): Promise<void> }> {
  await sql`create table outage_flag (on_ boolean)`.execute(db);
  await sql`insert into outage_flag values (true)`.execute(db);
  await sql`create function outage() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from outage_flag) then raise exception 'simulated outage'; end if;
        return new;
      end $$`.execute(db);
  await sql`create trigger outage before insert on webhook_event for each row execute function outage()`.execute(db);
  return {
    async end() {
      await sql`delete from outage_flag`.execute(db);
    },
  };
}

let counter = 0;

export function envelope(input: {
  gameId: string;
  type?: string;
  data?: Record<string, unknown>;
  eventId?: string;
  createdAt?: string;
}): string {
  counter += 1;
  return JSON.stringify({
    event_id: input.eventId ?? `evt_${randomBytes(6).toString("hex")}_${counter}`,
    event_type: input.type ?? "subscription.canceled",
    created_at: input.createdAt ?? "2026-06-01T00:00:00Z",
    tenant_id: input.gameId,
    data: input.data ?? {
      subscription_id: "SUB_1767225600_AAAA0001",
      access_until: "2026-06-15T00:00:00Z",
      cancel_at_period_end: true,
    },
  });
}

export function refundedData(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    subscription_id: "SUB_1767225600_AAAA0002",
    item_id: "silver",
    period_seq: 4,
    transaction_id: "txn_1",
    client_request_id: "pd-refund-1",
    player_email: "alice@example.test",
    identity_id: "idn_1",
    amount_usd: "5.00",
    total_refunded_amount_usd: "5.00",
    period_amount_usd: "9.99",
    is_full_refund: false,
    reason: "asked",
    period_status: "paid",
    refund: {
      funding_shape: "card",
      balance_delta_coins: "50.00",
      card_refunded_usd: "0.00",
      processor_refund_adopted: false,
      new_balance: "150.00",
      invo_fee_retained: true,
      partner_revenue_reversed_usd: "4.50",
      partner_revenue_reversal_mode: "prorata",
    },
    revenue_share_attribution: null,
    metadata: null,
    ...overrides,
  };
}

export type Delivery = {
  gameId?: string;
  body: string;
  /** Secrets to sign with (one v1 each); default the current one. */
  secrets?: string[];
  /** Signature timestamp in seconds; default now. */
  t?: number;
  /** Replaces the whole signature header (null leaves it out). */
  signature?: string | null;
  idempotencyKey?: string | null;
  headers?: Record<string, string>;
};

export function deliveryRequest(delivery: Delivery): Request {
  const gameId = delivery.gameId ?? "g1";
  const t = delivery.t ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-service-event-id": `evh_${randomBytes(6).toString("hex")}`,
    "x-service-secret-version": "v2",
    ...delivery.headers,
  };
  const signature =
    delivery.signature === undefined
      ? signatureHeader(delivery.body, t, delivery.secrets ?? [CURRENT_SECRET])
      : delivery.signature;
  if (signature !== null) headers["x-service-signature"] = signature;
  const key =
    delivery.idempotencyKey === undefined ? `idem_${randomBytes(8).toString("hex")}` : delivery.idempotencyKey;
  if (key !== null) headers["x-service-idempotency-key"] = key;
  return new Request(`http://localhost:3000/api/webhooks/service/${encodeURIComponent(gameId)}`, {
    method: "POST",
    headers,
    body: delivery.body,
  });
}

export async function deliver(POST: RouteHandler, delivery: Delivery): Promise<{ status: number; body: any }> {
  const gameId = delivery.gameId ?? "g1";
  const response = await POST(deliveryRequest(delivery), { params: Promise.resolve({ gameId }) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

export async function countsOf(db: Db, gameId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom("webhook_delivery_count")
    .select(["outcome", "reason", "count"])
    .where("game_id", "=", gameId)
    .execute();
  const out: Record<string, number> = {};
  for (const row of rows) {
    const key = row.reason ? `${row.outcome}:${row.reason}` : row.outcome;
    out[key] = (out[key] ?? 0) + Number(row.count);
  }
  return out;
}

/** A SnapshotLink that records what it is asked and reports one stale window: the month holding the instant. */
export function recordingLink(options: { failPulls?: number } = {}) {
  const marks: { gameId: string; instant: string; reason: string; detail: Record<string, unknown> }[] = [];
  const pulls: { gameId: string; window: string; via: string }[] = [];
  let failures = options.failPulls ?? 0;
  /** While true, the pull found for a window was already reading it (it may miss the change asked about). */
  const state = { reading: false };
  const link: SnapshotLink = {
    async markStale(_db, input) {
      marks.push({
        gameId: input.gameId,
        instant: input.instant.toISOString(),
        reason: input.reason,
        detail: input.detail,
      });
      return [monthWindow(input.instant.toISOString().slice(0, 7))];
    },
    async requestPull(_db, input) {
      if (failures > 0) {
        failures -= 1;
        throw new Error("queue unavailable");
      }
      pulls.push({ gameId: input.gameId, window: formatWindow(input.window), via: input.via });
      return { pullId: `pull-${pulls.length}`, readsFromNow: !state.reading };
    },
  };
  return { link, marks, pulls, state };
}
