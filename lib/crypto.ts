import "server-only";
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { requireEnv } from "./env";

/**
 * Secrets at rest (game secrets, webhook signing secrets) are sealed with AES-256-GCM under a key derived from
 * PAYOUT_DESK_KEY. The sealed form is "v1.<iv>.<tag>.<ciphertext>" in base64url; the associated data binds a
 * value to its purpose (for example "game-secret:demo-game"), so a sealed value copied to another row fails.
 */
const VERSION = "v1";
/** GCM accepts shorter tags unless told otherwise; a shortened tag is easier to forge, so only the full 16 bytes pass. */
const TAG_LENGTH = 16;

function masterKey(): Buffer {
  const key = Buffer.from(requireEnv("PAYOUT_DESK_KEY"), "base64");
  if (key.length !== 32) throw new Error("PAYOUT_DESK_KEY must decode to 32 bytes");
  return key;
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

export function openSecret(sealed: string, context: string, master?: Buffer): string {
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

/** What a person may see of a secret: its kind prefix and last four characters. */
export function maskSecret(secret: string): string {
  if (secret.length <= 8) return "••••";
  const prefix = /^[a-z]+_(test_|live_)?/i.exec(secret)?.[0] ?? "";
  return `${prefix}••••${secret.slice(-4)}`;
}

export function newKeyBase64(): string {
  return randomBytes(32).toString("base64");
}
