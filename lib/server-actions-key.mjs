// The key Next.js encrypts server actions' closed-over arguments with, at run time, and salts action ids with, at build
// time (NEXT_SERVER_ACTIONS_ENCRYPTION_KEY: a base64 AES key of 16, 24 or 32 bytes; a build embeds it in its server
// manifest, and the variable, when set, wins at run time). Derived from PAYOUT_DESK_KEY with HKDF, as lib/crypto.ts
// deriveKey does (a test holds the two to the same value), so that every build and every server of one deployment
// agrees without another secret to share. Loaded by next.config.mjs, which `next build` and `next start` read first.
import { hkdfSync } from "node:crypto";

const MASTER = /^[A-Za-z0-9+/]{43}=$/;
export const SERVER_ACTIONS_KEY_PURPOSE = "next-server-actions";

/**
 * @param {string} masterBase64 PAYOUT_DESK_KEY
 * @returns {string} 32 bytes in base64
 */
export function serverActionsEncryptionKey(masterBase64) {
  if (!MASTER.test(masterBase64)) throw new Error("PAYOUT_DESK_KEY must be 32 random bytes in base64");
  const master = Buffer.from(masterBase64, "base64");
  const info = `payout-desk:${SERVER_ACTIONS_KEY_PURPOSE}`;
  return Buffer.from(hkdfSync("sha256", master, Buffer.alloc(0), info, 32)).toString("base64");
}

/**
 * Sets NEXT_SERVER_ACTIONS_ENCRYPTION_KEY from PAYOUT_DESK_KEY when it is not set already (an explicit value is kept).
 * @param {Record<string, string | undefined>} env
 */
export function applyServerActionsKey(env) {
  if (env.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY || !env.PAYOUT_DESK_KEY || !MASTER.test(env.PAYOUT_DESK_KEY)) return;
  env.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY = serverActionsEncryptionKey(env.PAYOUT_DESK_KEY);
}
