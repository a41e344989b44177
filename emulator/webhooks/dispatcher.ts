import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { Ledger } from "../ledger/ledger";
import type { LedgerEvent, WebhookEndpoint } from "../ledger/types";
import { formatInstant, SECOND } from "../time";

/** Spec, Events: "Retry back-off schedule: 30 seconds, 2 minutes, 10 minutes, 1 hour, 6 hours, 24 hours." */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [30, 120, 600, 3_600, 21_600, 86_400];

export type DeliveryAttempt = {
  attempt_no: number;
  event_id_header: string;
  attempted_at: string;
  signature: string;
  secret_version: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
};

export type Delivery = {
  delivery_id: string;
  game_id: string;
  webhook_id: string;
  url: string;
  event_id: string;
  event_type: string;
  idempotency_key: string;
  created_at: string;
  status: "pending" | "delivered" | "failed";
  next_attempt_at: string | null;
  attempts: DeliveryAttempt[];
  body: string;
};

/**
 * Signs "{t}.{raw body}" with each secret. Spec: "X-Service-Signature: t=<unix_timestamp>,v1=<hex HMAC-SHA256>";
 * during a signing-secret rotation "deliveries carry two v1= values".
 */
export function signPayload(body: string, timestamp: number, secrets: readonly string[]): string {
  const signatures = secrets.map(
    (secret) => `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`,
  );
  return [`t=${timestamp}`, ...signatures].join(",");
}

export function endpointWants(endpoint: WebhookEndpoint, eventType: string): boolean {
  return endpoint.events.includes("*") || endpoint.events.includes(eventType);
}

export type DispatcherOptions = {
  /** Retries come `schedule / retryScale` after a failure, by wall clock. */
  retryScale: number;
  timeoutMs: number;
  ledger: () => Ledger;
};

/**
 * Delivers events to registered endpoints by wall clock: the first try at once, retries on the spec's schedule
 * divided by retryScale. The emulator clock only dates the events (created_at) and decides which signing secrets are
 * still in their grace window.
 */
export class WebhookDispatcher {
  readonly deliveries: Delivery[] = [];
  private timers = new Map<string, NodeJS.Timeout>();
  private inFlight = new Set<http.ClientRequest>();
  private closed = false;

  constructor(private readonly options: DispatcherOptions) {}

  enqueue(event: LedgerEvent): void {
    const game = this.options.ledger().games.get(event.gameId);
    if (!game || this.closed) return;
    const eventId = `evt_${randomBytes(12).toString("hex")}`;
    const body = JSON.stringify({
      event_id: eventId,
      event_type: event.type,
      created_at: formatInstant(event.at),
      tenant_id: event.gameId,
      data: event.data,
    });
    for (const endpoint of game.webhooks) {
      if (!endpointWants(endpoint, event.type)) continue;
      const delivery: Delivery = {
        delivery_id: `dlv_${randomBytes(10).toString("hex")}`,
        game_id: event.gameId,
        webhook_id: endpoint.webhookId,
        url: endpoint.url,
        event_id: eventId,
        event_type: event.type,
        idempotency_key: `idem_${randomBytes(12).toString("hex")}`,
        created_at: formatInstant(event.at),
        status: "pending",
        next_attempt_at: new Date().toISOString(),
        attempts: [],
        body,
      };
      this.deliveries.push(delivery);
      void this.attempt(delivery);
    }
  }

  /** Sends every delivery waiting for a retry now. */
  retryNow(): number {
    let count = 0;
    for (const [id, timer] of this.timers) {
      clearTimeout(timer);
      this.timers.delete(id);
      const delivery = this.deliveries.find((d) => d.delivery_id === id);
      if (delivery) {
        void this.attempt(delivery);
        count++;
      }
    }
    return count;
  }

  /** Sends a delivery again (a replay): new X-Service-Event-Id, same idempotency key. */
  replay(deliveryId: string): Delivery | null {
    const delivery = this.deliveries.find((d) => d.delivery_id === deliveryId);
    if (!delivery) return null;
    const timer = this.timers.get(deliveryId);
    if (timer) clearTimeout(timer);
    this.timers.delete(deliveryId);
    delivery.status = "pending";
    void this.attempt(delivery);
    return delivery;
  }

  /** Resolves once no try is in flight (tests wait on it). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.deliveries.length = 0;
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const request of this.inFlight) request.destroy();
    this.inFlight.clear();
  }

  private secretsFor(delivery: Delivery): { secrets: string[]; version: string } {
    const ledger = this.options.ledger();
    const endpoint = ledger.games.get(delivery.game_id)?.webhooks.find((w) => w.webhookId === delivery.webhook_id);
    if (!endpoint) return { secrets: [], version: "v0" };
    const [current, ...older] = endpoint.secrets;
    if (!current) return { secrets: [], version: "v0" };
    const grace = older.filter((s) => s.validUntil !== null && s.validUntil > ledger.now).map((s) => s.secret);
    return { secrets: [current.secret, ...grace], version: `v${current.version}` };
  }

  private async attempt(delivery: Delivery): Promise<void> {
    if (this.closed) return;
    const { secrets, version } = this.secretsFor(delivery);
    const timestamp = Math.floor(Date.now() / SECOND);
    const signature = signPayload(delivery.body, timestamp, secrets);
    const eventIdHeader = `evh_${randomBytes(12).toString("hex")}`;
    const started = Date.now();
    const attempt: DeliveryAttempt = {
      attempt_no: delivery.attempts.length + 1,
      event_id_header: eventIdHeader,
      attempted_at: new Date(started).toISOString(),
      signature,
      secret_version: version,
      status_code: null,
      error: null,
      duration_ms: 0,
    };
    delivery.attempts.push(attempt);
    delivery.next_attempt_at = null;
    try {
      attempt.status_code = await this.post(delivery.url, delivery.body, {
        "content-type": "application/json",
        "user-agent": "payout-desk-service-emulator",
        "x-service-signature": signature,
        "x-service-event-id": eventIdHeader,
        "x-service-idempotency-key": delivery.idempotency_key,
        "x-service-secret-version": version,
        "x-service-event-type": delivery.event_type,
      });
    } catch (error) {
      attempt.error = (error as Error).message || String(error);
    }
    attempt.duration_ms = Date.now() - started;
    if (this.closed) return;
    // Spec: a non-2xx answer or a network error is retried on the schedule.
    if (attempt.status_code !== null && attempt.status_code >= 200 && attempt.status_code < 300) {
      delivery.status = "delivered";
      return;
    }
    const retryNo = delivery.attempts.length - 1;
    const delaySeconds = RETRY_SCHEDULE_SECONDS[retryNo];
    if (delaySeconds === undefined) {
      delivery.status = "failed";
      return;
    }
    const delayMs = (delaySeconds * SECOND) / this.options.retryScale;
    delivery.status = "pending";
    delivery.next_attempt_at = new Date(Date.now() + delayMs).toISOString();
    const timer = setTimeout(() => {
      this.timers.delete(delivery.delivery_id);
      void this.attempt(delivery);
    }, delayMs);
    timer.unref();
    this.timers.set(delivery.delivery_id, timer);
  }

  private post(url: string, body: string, headers: Record<string, string>): Promise<number> {
    return new Promise((resolve, reject) => {
      const target = new URL(url);
      const client = target.protocol === "https:" ? https : http;
      const request = client.request(
        target,
        { method: "POST", agent: false, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } },
        (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode ?? 0));
          response.on("error", reject);
        },
      );
      this.inFlight.add(request);
      request.setTimeout(this.options.timeoutMs, () =>
        request.destroy(new Error(`timed out after ${this.options.timeoutMs} ms`)),
      );
      request.on("error", reject);
      request.on("close", () => this.inFlight.delete(request));
      request.end(body);
    });
  }
}
