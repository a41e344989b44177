import "server-only";
import type { Db } from "@/db";
import { storeWebhookEvent } from "@/db/queries/webhook-receiving";
import { gameIdSchema } from "@/lib/games/schemas";
import { enqueue } from "@/lib/jobs/queue";
import { log } from "@/lib/log";
import {
  parseWebhookEvent,
  RECEIVED_EVENT_ID,
  type WebhookEnvelope,
  webhookEnvelopeSchema,
} from "@/lib/service/schemas";
import { parseServiceInstant } from "@/lib/time";
import { marksWindowStale } from "./describe";
import { eventInstant } from "./event-time";
import { EventTooDeepError, readEventJson } from "./event-json";
import { drainWebhookEventsJob } from "./drain-job";
import { countRefusal } from "./refusal-counts";
import { parseSignatureHeader, type RefusalReason, verifySignature } from "./signature";
import { changedSinceKept, signingSecretsFor, stillCurrent } from "./signing-secrets";

/** Bodies over 1 MB are refused before they are read in full. */
export const MAX_BODY_BYTES = 1_048_576;
const MAX_HEADER_VALUE = 255;
const PRINTABLE = /^[\x21-\x7e]+$/;

export type DeliveryRefusal =
  | RefusalReason
  | "unknown_game"
  | "body_too_large"
  | "body_not_utf8"
  | "body_not_json"
  | "body_too_deep"
  | "envelope_invalid"
  | "tenant_mismatch"
  | "idempotency_key_missing"
  | "idempotency_key_malformed";

/**
 * The HTTP status of each refusal: malformed input is 400, never 500; a signature that does not verify is 401.
 * Refusals decided before the signature verifies (size, UTF-8, signature header) never depend on the game; those
 * about the game (unknown, no secret) are answered as a signature that does not verify.
 */
const REFUSAL_STATUS: Record<DeliveryRefusal, number> = {
  signature_missing: 400,
  signature_malformed: 400,
  idempotency_key_missing: 400,
  idempotency_key_malformed: 400,
  body_not_utf8: 400,
  body_not_json: 400,
  body_too_deep: 400,
  envelope_invalid: 400,
  tenant_mismatch: 400,
  no_secret_configured: 401,
  signature_mismatch: 401,
  timestamp_too_old: 401,
  timestamp_in_future: 401,
  unknown_game: 401,
  body_too_large: 413,
};

export type ReceiveOptions = {
  db: Db;
  nowMs?: number;
  /** Queues the processing of a stored event; the default queues the pg-boss job. */
  queueProcessing?: (eventId: string) => Promise<void>;
};

function answer(status: number, body: Record<string, unknown>): Response {
  return Response.json(body, { status, headers: { "Cache-Control": "no-store" } });
}

/** What the caller is told: reasons about the game's configuration read exactly as a signature that does not verify. */
const MISMATCH_SHOWN = { code: "signature_mismatch", message: "no v1 value matches a configured secret" };
const SHOWN_AS_MISMATCH = new Set<DeliveryRefusal>(["unknown_game", "no_secret_configured", "signature_mismatch"]);

function refuse(
  db: Db,
  input: { gameId: string | null; reason: DeliveryRefusal; detail: string; deliveryId: string | null },
): Response {
  // A refused delivery leaves a counter (kept in memory, written in batches) and this line: never its body, never a
  // header value we were not sure of.
  log.warn("webhook refused", {
    game: input.gameId,
    reason: input.reason,
    detail: input.detail,
    delivery: input.deliveryId,
  });
  countRefusal(db, { gameId: input.gameId ?? "", reason: input.reason });
  const shown = SHOWN_AS_MISMATCH.has(input.reason) ? MISMATCH_SHOWN : { code: input.reason, message: input.detail };
  return answer(SHOWN_AS_MISMATCH.has(input.reason) ? 401 : REFUSAL_STATUS[input.reason], { error: shown });
}

type BodyRead = { ok: true; text: string } | { ok: false; reason: "body_too_large" | "body_not_utf8" };

/** Reads the body once, stopping as soon as it passes the limit (a missing or false Content-Length does not help). */
async function readBody(request: Request, limit: number): Promise<BodyRead> {
  const reader = request.body?.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => {});
        return { ok: false, reason: "body_too_large" };
      }
      chunks.push(value);
    }
  }
  const bytes = Buffer.concat(chunks, total);
  try {
    // fatal: bytes that are not UTF-8 are refused rather than replaced; ignoreBOM keeps the body exactly as signed.
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return { ok: false, reason: "body_not_utf8" };
  }
}

function headerValue(request: Request, name: string): string | null {
  const value = request.headers.get(name);
  return value === null ? null : value.trim();
}

/** A header value we may store and show: printable ASCII, bounded; anything else is dropped. */
function safeHeader(value: string | null): string | null {
  return value && value.length <= MAX_HEADER_VALUE && PRINTABLE.test(value) ? value : null;
}

function stringField(data: Record<string, unknown>, name: string): string | null {
  const value = data[name];
  return typeof value === "string" && value.length > 0 && value.length <= MAX_HEADER_VALUE ? value : null;
}

/**
 * Receives one delivery: size limit, signature, envelope, then one transaction storing the event and its
 * idempotency key. Answers 200 for a new event and for a duplicate, 4xx for a refusal, 503 when the database cannot
 * take it (the service then retries on its schedule). The work the event causes runs later, in a job.
 *
 * Until the signature verifies, nothing depends on the game: a known id, an unknown one and a game without a signing
 * secret get the same answers after the same work (the size and the signature header are checked first, then the
 * same number of HMACs against secrets kept in memory), and a refusal writes nothing (its counter is batched).
 */
export async function receiveWebhook(
  request: Request,
  gameIdParam: string,
  options: ReceiveOptions,
): Promise<Response> {
  const { db } = options;
  const deliveryId = safeHeader(headerValue(request, "x-service-event-id"));
  const gameIdParsed = gameIdSchema.safeParse(gameIdParam);
  const gameId = gameIdParsed.success ? gameIdParsed.data : null;

  const declared = headerValue(request, "content-length");
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > MAX_BODY_BYTES) {
    return refuse(db, {
      gameId,
      reason: "body_too_large",
      detail: `the body is over ${MAX_BODY_BYTES} bytes`,
      deliveryId,
    });
  }
  const read = await readBody(request, MAX_BODY_BYTES);
  if (!read.ok) {
    const detail =
      read.reason === "body_too_large" ? `the body is over ${MAX_BODY_BYTES} bytes` : "the body is not UTF-8";
    return refuse(db, { gameId, reason: read.reason, detail, deliveryId });
  }
  const body = read.text;

  const signature = headerValue(request, "x-service-signature");
  const header = parseSignatureHeader(signature);
  if (!header.ok) return refuse(db, { gameId, reason: header.reason, detail: header.detail, deliveryId });

  const nowMs = options.nowMs ?? Date.now();
  let signing: Awaited<ReturnType<typeof signingSecretsFor>>;
  let verified: ReturnType<typeof verifySignature>;
  try {
    signing = await signingSecretsFor(db, gameId);
    verified = verifySignature({ header: signature, body, secrets: signing.secrets, nowMs });
    // Verified with secrets kept in memory: checked against the database first (another server may have replaced or
    // revoked them), and verified again with what it holds when they changed.
    if (
      verified.ok &&
      verified.secretIndex < signing.real &&
      gameId !== null &&
      !(await stillCurrent(db, gameId, signing.stamp))
    ) {
      signing = await signingSecretsFor(db, gameId);
      verified = verifySignature({ header: signature, body, secrets: signing.secrets, nowMs });
    }
    // Matched none of them: the secrets may have been rotated (or the game added) elsewhere since they were kept.
    const matchedNone = verified.ok ? verified.secretIndex >= signing.real : verified.reason === "signature_mismatch";
    if (matchedNone && gameId !== null && (await changedSinceKept(db, gameId, signing.stamp, nowMs))) {
      signing = await signingSecretsFor(db, gameId);
      verified = verifySignature({ header: signature, body, secrets: signing.secrets, nowMs });
    }
  } catch (error) {
    log.error("webhook: signing secrets not readable", { game: gameId, error });
    return answer(503, {
      error: { code: "unavailable", message: "The delivery could not be checked now; retry later." },
    });
  }
  if (!verified.ok || verified.secretIndex >= signing.real) {
    // Counted under the reason that applies; answered alike (see SHOWN_AS_MISMATCH).
    let reason: DeliveryRefusal = verified.ok ? "signature_mismatch" : verified.reason;
    if (signing.real === 0) reason = signing.known ? "no_secret_configured" : "unknown_game";
    const detail = verified.ok ? "no v1 value matches a configured secret" : verified.detail;
    return refuse(db, { gameId: signing.known ? gameId : null, reason, detail, deliveryId });
  }
  if (gameId === null) throw new Error("a signature verified for no game");

  const idempotencyKey = headerValue(request, "x-service-idempotency-key");
  if (!idempotencyKey) {
    return refuse(db, {
      gameId,
      reason: "idempotency_key_missing",
      detail: "X-Service-Idempotency-Key is missing",
      deliveryId,
    });
  }
  if (idempotencyKey.length > MAX_HEADER_VALUE || !PRINTABLE.test(idempotencyKey)) {
    return refuse(db, {
      gameId,
      reason: "idempotency_key_malformed",
      detail: "X-Service-Idempotency-Key is not a printable key of at most 255 characters",
      deliveryId,
    });
  }

  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return refuse(db, { gameId, reason: "body_not_json", detail: "the body is not JSON", deliveryId });
  }
  // PostgreSQL's text and jsonb store no NUL, and a body holding one refused would be sent again for ever and lost. It
  // is kept as sent (JSON writes a NUL as the escape \u0000, text like the rest), and read, here and when processed,
  // with each NUL replaced (readEventJson).
  try {
    json = readEventJson(json);
  } catch (error) {
    if (!(error instanceof EventTooDeepError)) throw error;
    return refuse(db, { gameId, reason: "body_too_deep", detail: error.message, deliveryId });
  }
  const parsed = parseWebhookEvent(json);
  let envelope: WebhookEnvelope;
  let parseIssues: string[] | null = null;
  if (parsed.success) {
    envelope = parsed.event.envelope;
  } else {
    // A genuine event whose envelope is readable but whose data is not what we expect is kept (and shown as
    // unprocessable) rather than refused: the service would only send the same body again.
    const envelopeOnly = webhookEnvelopeSchema.safeParse(json);
    if (!envelopeOnly.success) {
      return refuse(db, {
        gameId,
        reason: "envelope_invalid",
        detail: parsed.issues.slice(0, 5).join("; "),
        deliveryId,
      });
    }
    envelope = envelopeOnly.data;
    parseIssues = parsed.issues.slice(0, 50);
  }
  if (envelope.tenant_id !== gameId) {
    return refuse(db, {
      gameId,
      reason: "tenant_mismatch",
      detail: "tenant_id is not the game of this URL",
      deliveryId,
    });
  }

  if (!RECEIVED_EVENT_ID.safeParse(envelope.event_id).success) {
    return refuse(db, {
      gameId,
      reason: "envelope_invalid",
      detail: "event_id must be 1 to 255 characters",
      deliveryId,
    });
  }
  const instant = parsed.success ? eventInstant(parsed.event) : parseServiceInstant(envelope.created_at);
  let stored: Awaited<ReturnType<typeof storeWebhookEvent>>;
  try {
    stored = await storeWebhookEvent(db, {
      gameId,
      idempotencyKey,
      eventId: envelope.event_id,
      eventType: envelope.event_type.slice(0, 255),
      deliveryId,
      secretVersion: safeHeader(headerValue(request, "x-service-secret-version")),
      signedWith: verified.secretIndex === 0 ? "current" : "previous",
      signatureTimestamp: new Date(verified.timestamp * 1_000),
      occurredAt: instant === null ? null : new Date(instant),
      subscriptionId: stringField(envelope.data, "subscription_id"),
      clientRequestId:
        envelope.event_type === "subscription.refunded" ? stringField(envelope.data, "client_request_id") : null,
      body,
      parseIssues,
      staleChange: unreadChange(envelope, parseIssues, instant),
    });
  } catch (error) {
    log.error("webhook not stored", { game: gameId, eventType: envelope.event_type, delivery: deliveryId, error });
    return answer(503, { error: { code: "unavailable", message: "The event could not be stored now; retry later." } });
  }

  if (stored.outcome === "duplicate") {
    log.info("webhook duplicate", { game: gameId, eventType: envelope.event_type, delivery: deliveryId });
    return answer(200, { status: "duplicate" });
  }
  log.info("webhook accepted", {
    game: gameId,
    id: stored.id,
    eventType: envelope.event_type,
    delivery: deliveryId,
    signedWith: verified.secretIndex === 0 ? "current" : "previous",
  });
  if (!parseIssues) {
    try {
      await (options.queueProcessing ?? queueWebhookProcessing)(stored.id);
    } catch (error) {
      // The event is stored; the sweep job queues whatever is still pending a little later.
      log.warn("webhook processing not queued", { game: gameId, id: stored.id, error });
    }
  }
  return answer(200, { status: "accepted", id: stored.id });
}

/**
 * A refund or renewal whose data cannot be read is kept unprocessed, yet it changed a window: marked stale by the
 * event's own time (its envelope's), so a snapshot read before it is not paid from as if it held everything.
 */
function unreadChange(envelope: WebhookEnvelope, parseIssues: string[] | null, instant: number | null) {
  if (!parseIssues || instant === null || !marksWindowStale(envelope.event_type)) return undefined;
  const subscriptionId = stringField(envelope.data, "subscription_id");
  return {
    instant: new Date(instant),
    reason: `${envelope.event_type}${subscriptionId ? ` ${subscriptionId}` : ""} (its data could not be read)`,
    detail: { eventId: envelope.event_id, eventType: envelope.event_type, unreadable: true },
    subscriptionId,
  };
}

type Asking = { running: Promise<void> | null; next: Promise<void> | null };
const asking: Asking = { running: null, next: null };

/**
 * Asks for the stored events to be processed: a drain job (lib/webhooks/drain.ts) takes every event waiting, so one
 * waiting drain serves a whole burst (the queue refuses a second while one waits). Deliveries stored while an ask is
 * on its way share the one that follows it: that ask starts after they were stored, so a drain it queues sees them.
 */
export function queueWebhookProcessing(_eventId: string): Promise<void> {
  if (asking.running === null) {
    asking.running = enqueue(drainWebhookEventsJob, {})
      .then(() => undefined)
      .finally(() => {
        asking.running = null;
      });
    return asking.running;
  }
  asking.next ??= asking.running
    .catch(() => undefined)
    .then(() => {
      asking.next = null;
      return queueWebhookProcessing("");
    });
  return asking.next;
}
