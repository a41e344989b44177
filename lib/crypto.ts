import "server-only";
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { env, requireEnv } from "./env";

/**
 * Secrets at rest (game secrets, webhook signing secrets) are sealed with AES-256-GCM under a key derived from
 * PAYOUT_DESK_KEY. The sealed form is "v1.<iv>.<tag>.<ciphertext>" in base64url; the associated data binds a
 * value to its purpose (for example "game-secret:demo-game"), so a sealed value copied to another row fails.
 */
const VERSION = "v1";
/**
 * GCM accepts shorter tags unless told otherwise; a shortened tag is easier to forge, so only the full 16 bytes pass.
 */
const TAG_LENGTH = 16;

export function decodeKey(base64: string, name = "PAYOUT_DESK_KEY"): Buffer {
  const key = Buffer.from(base64, "base64");
  if (key.length !== 32) throw new Error(`${name} must decode to 32 bytes`);
  return key;
}

function masterKey(): Buffer {
  return decodeKey(requireEnv("PAYOUT_DESK_KEY"));
}

/**
 * The keys this process holds: PAYOUT_DESK_KEY, and during a rotation's rollout PAYOUT_DESK_KEY_PREVIOUS. Values
 * open with either; new values are sealed with the one the database names (lib/keys/check.ts).
 */
export type Keyring = { current: Buffer; previous: Buffer | null };

export function readKeyring(): Keyring {
  const previous = env().PAYOUT_DESK_KEY_PREVIOUS;
  return { current: masterKey(), previous: previous ? decodeKey(previous, "PAYOUT_DESK_KEY_PREVIOUS") : null };
}

/** A short public name for a key: an HMAC of a fixed label, so it tells nothing about the key. */
export function keyId(master: Buffer): string {
  return createHmac("sha256", deriveKey("key-id", master)).update("payout-desk key id v1").digest("hex").slice(0, 12);
}

/** What the database keeps to recognise the key later: a full HMAC of a fixed label under a key derived from it. */
export function keyFingerprint(master: Buffer): string {
  return createHmac("sha256", deriveKey("key-check", master)).update("payout-desk key check v1").digest("base64url");
}

export function fingerprintMatches(master: Buffer, fingerprint: string): boolean {
  const expected = Buffer.from(keyFingerprint(master));
  const stored = Buffer.from(fingerprint);
  return expected.length === stored.length && timingSafeEqual(expected, stored);
}

export function deriveKey(purpose: string, master: Buffer = masterKey()): Buffer {
  return Buffer.from(hkdfSync("sha256", master, Buffer.alloc(0), `payout-desk:${purpose}`, 32));
}

export function sealSecret(plain: string, context: string, master?: Buffer): string {
  const key = deriveKey("secrets-at-rest", master);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_LENGTH });
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString("base64url"), tag.toString("base64url"), body.toString("base64url")].join(".");
}

/**
 * Opens a sealed value with the given key, or else with the keyring (PAYOUT_DESK_KEY, then PAYOUT_DESK_KEY_PREVIOUS
 * during a rotation's rollout).
 */
export function openSecret(sealed: string, context: string, master?: Buffer): string {
  if (master) return openWith(sealed, context, master);
  const ring = readKeyring();
  try {
    return openWith(sealed, context, ring.current);
  } catch (error) {
    if (!ring.previous) throw error;
    return openWith(sealed, context, ring.previous);
  }
}

function openWith(sealed: string, context: string, master?: Buffer): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error("sealed secret has an unknown format");
  const authTag = Buffer.from(tag, "base64url");
  if (authTag.length !== TAG_LENGTH) throw new Error("sealed secret has an authentication tag of the wrong length");
  const decipher = createDecipheriv("aes-256-gcm", deriveKey("secrets-at-rest", master), Buffer.from(iv, "base64url"), {
    authTagLength: TAG_LENGTH,
  });
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(authTag);
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}

/**
 * What a person may see of a secret: its kind prefix (a short word such as "gs_live_" or "whsec_") and last four
 * characters, and never fewer than 8 characters hidden (a secret under 12 characters shows nothing): a secret of
 * another shape ("MyStudioSigningKey_2026") shows its last four alone.
 */
export function maskSecret(secret: string): string {
  if (secret.length - 4 < 8) return "••••";
  const prefix = /^[a-z]{1,8}_(test_|live_)?/i.exec(secret)?.[0] ?? "";
  const shown = secret.length - prefix.length - 4 >= 8 ? prefix : "";
  return `${shown}••••${secret.slice(-4)}`;
}

/**
 * NEXT_SERVER_ACTIONS_ENCRYPTION_KEY for a master key (lib/server-actions-key.mjs derives the same for
 * next.config).
 */
export function serverActionsKey(master: Buffer): string {
  return deriveKey("next-server-actions", master).toString("base64");
}

export function newKeyBase64(): string {
  return randomBytes(32).toString("base64");
}
