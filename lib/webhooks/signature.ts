import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Verification of the service's webhook signature, pure (no clock, no database: both are passed in).
 *
 * Spec, Authentication: "X-Service-Signature: t=<unix_timestamp>,v1=<hex HMAC-SHA256>, computed over the timestamp
 * and the raw body joined by a period, keyed with the signing secret; compare in constant time; reject timestamps
 * older than 5 minutes." During a rotation "deliveries carry two v1= values".
 */

/** Spec, Limits: "Webhook timestamp tolerance | 5 minutes". A timestamp as far in the future is refused too. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Far more than a rotation needs (two values); bounds the work one request can cause. */
const MAX_SIGNATURES = 8;
const MAX_HEADER_LENGTH = 2_048;
const HEX_SHA256 = /^[0-9a-f]{64}$/i;
const UNIX_SECONDS = /^\d{1,12}$/;

export type SignatureHeader = { timestamp: number; signatures: Buffer[] };

export type MalformedReason = "signature_missing" | "signature_malformed";
export type RefusalReason =
  | MalformedReason
  | "no_secret_configured"
  | "signature_mismatch"
  | "timestamp_too_old"
  | "timestamp_in_future";

export type ParsedHeader =
  | { ok: true; header: SignatureHeader }
  | { ok: false; reason: MalformedReason; detail: string };

/**
 * Parses `t=<seconds>,v1=<hex>[,v1=<hex>...]`. Exactly one `t`, at least one `v1`, every `v1` 64 hex digits;
 * other schemes (`v0=`, a future `v2=`) are ignored so that a new scheme added beside v1 does not break us.
 */
export function parseSignatureHeader(value: string | null | undefined): ParsedHeader {
  if (value === null || value === undefined || value.trim() === "") {
    return { ok: false, reason: "signature_missing", detail: "X-Service-Signature is missing" };
  }
  if (value.length > MAX_HEADER_LENGTH) {
    return { ok: false, reason: "signature_malformed", detail: "X-Service-Signature is too long" };
  }
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of value.split(",")) {
    const item = part.trim();
    const equals = item.indexOf("=");
    if (equals <= 0)
      return { ok: false, reason: "signature_malformed", detail: "X-Service-Signature has a part without key=value" };
    const key = item.slice(0, equals).trim();
    const text = item.slice(equals + 1).trim();
    if (key === "t") {
      if (timestamp !== null)
        return { ok: false, reason: "signature_malformed", detail: "X-Service-Signature has more than one t" };
      if (!UNIX_SECONDS.test(text))
        return { ok: false, reason: "signature_malformed", detail: "t is not a unix timestamp in seconds" };
      timestamp = Number(text);
    } else if (key === "v1") {
      if (!HEX_SHA256.test(text))
        return { ok: false, reason: "signature_malformed", detail: "a v1 value is not 64 hex digits" };
      if (signatures.length === MAX_SIGNATURES) {
        return { ok: false, reason: "signature_malformed", detail: `more than ${MAX_SIGNATURES} v1 values` };
      }
      signatures.push(Buffer.from(text, "hex"));
    }
  }
  if (timestamp === null) return { ok: false, reason: "signature_malformed", detail: "X-Service-Signature has no t" };
  if (signatures.length === 0)
    return { ok: false, reason: "signature_malformed", detail: "X-Service-Signature has no v1" };
  return { ok: true, header: { timestamp, signatures } };
}

/** HMAC-SHA256 of "{t}.{raw body}" with one secret, as hex (what the service sends as v1). */
export function computeSignature(body: string, timestampSeconds: number, secret: string): string {
  return createHmac("sha256", secret).update(`${timestampSeconds}.${body}`, "utf8").digest("hex");
}

/** The header value the service would send for this body (tests and tooling). */
export function signatureHeader(body: string, timestampSeconds: number, secrets: readonly string[]): string {
  return [
    `t=${timestampSeconds}`,
    ...secrets.map((secret) => `v1=${computeSignature(body, timestampSeconds, secret)}`),
  ].join(",");
}

export type VerifyInput = {
  header: string | null | undefined;
  /** The raw body as received; never a re-serialised parse of it. */
  body: string;
  /** Every secret the game accepts: the current one first, then the previous one during a rotation. */
  secrets: readonly string[];
  nowMs: number;
  toleranceSeconds?: number;
};

export type Verification =
  | { ok: true; timestamp: number; secretIndex: number }
  | { ok: false; reason: RefusalReason; detail: string };

/**
 * Checks the signature against every configured secret, then the timestamp. The signature comes first so that the
 * reason recorded for a stale but genuine delivery (a replay) differs from that of a forgery.
 */
export function verifySignature(input: VerifyInput): Verification {
  const parsed = parseSignatureHeader(input.header);
  if (!parsed.ok) return parsed;
  if (input.secrets.length === 0) {
    return { ok: false, reason: "no_secret_configured", detail: "the game has no webhook signing secret configured" };
  }
  const { timestamp, signatures } = parsed.header;
  let secretIndex = -1;
  input.secrets.forEach((secret, index) => {
    const expected = createHmac("sha256", secret).update(`${timestamp}.${input.body}`, "utf8").digest();
    for (const candidate of signatures) {
      // Every pair is compared (no early exit) and timingSafeEqual compares in constant time.
      if (timingSafeEqual(expected, candidate) && secretIndex === -1) secretIndex = index;
    }
  });
  if (secretIndex === -1) {
    return { ok: false, reason: "signature_mismatch", detail: "no v1 value matches a configured secret" };
  }
  const tolerance = input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor(input.nowMs / 1_000);
  if (nowSeconds - timestamp > tolerance) {
    return { ok: false, reason: "timestamp_too_old", detail: `signed ${nowSeconds - timestamp} s ago` };
  }
  if (timestamp - nowSeconds > tolerance) {
    return { ok: false, reason: "timestamp_in_future", detail: `signed ${timestamp - nowSeconds} s in the future` };
  }
  return { ok: true, timestamp, secretIndex };
}
