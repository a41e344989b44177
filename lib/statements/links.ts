import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Db } from "@/db";
import {
  countUnsettledSends,
  getBatchLinkRevocation,
  lockBatchLinks,
  revokeBatchLinks,
} from "@/db/queries/statement-links";
import { findBatchGame } from "@/db/queries/payout-lookup";
import { findStatementOwner } from "@/db/queries/statements";
import { databaseNowMs } from "@/db/queries/scalar";
import type { ActingAs } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { deriveKey, type Keyring, readKeyring } from "@/lib/crypto";
import { AppError } from "@/lib/errors";
import { appBaseUrl } from "@/lib/env";
import { MS_PER_DAY } from "@/lib/time";
import { UUID } from "@/core/uuid";

/**
 * Signed, expiring, read-only links to one statement's PDF, for a recipient without an account.
 *
 * Token: base64url(statement id (16 bytes) ‖ expiry ms (8) ‖ issued ms (8)) "." base64url(HMAC-SHA256 of those 32
 * bytes under a key derived for this purpose alone from the key the database names: lib/keys/check.ts `namedKey`).
 * A link opens under PAYOUT_DESK_KEY or PAYOUT_DESK_KEY_PREVIOUS, so a key rotation ends no link before the previous
 * key is let go. The whole MAC is checked in constant time; an expired link, a link of a batch whose links were
 * revoked after it was issued, a tampered or unknown one all get the same answer.
 */
const PURPOSE = "statement-links";
const TOKEN = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/;

export const STATEMENT_LINK_PATH = "/api/statement-links/";

function mac(body: Buffer, master: Buffer): Buffer {
  return createHmac("sha256", deriveKey(PURPOSE, master)).update(body).digest();
}

export function signStatementLink(
  statementId: string,
  options: { issuedAt: number; expiresAt: number; master: Buffer },
): string {
  if (!UUID.test(statementId)) throw new Error("a statement id is a uuid");
  const body = Buffer.alloc(32);
  Buffer.from(statementId.replaceAll("-", ""), "hex").copy(body, 0);
  body.writeBigUInt64BE(BigInt(options.expiresAt), 16);
  body.writeBigUInt64BE(BigInt(options.issuedAt), 24);
  return `${body.toString("base64url")}.${mac(body, options.master).toString("base64url")}`;
}

export type LinkClaims = { statementId: string; expiresAt: number; issuedAt: number };

/** The claims of a well-formed token whose MAC is right (expiry and revocation are checked by the caller). */
export function readStatementLink(token: string, ring: Keyring = readKeyring()): LinkClaims | null {
  const match = TOKEN.exec(token);
  if (!match?.[1] || !match[2]) return null;
  const body = Buffer.from(match[1], "base64url");
  const given = Buffer.from(match[2], "base64url");
  // base64url of 32 bytes is 43 characters; a re-encoding must give the same text (no spare bits set).
  if (body.length !== 32 || given.length !== 32 || body.toString("base64url") !== match[1]) return null;
  if (given.toString("base64url") !== match[2]) return null;
  const keys = [ring.current, ring.previous].filter((key): key is Buffer => key !== null);
  if (!keys.some((key) => timingSafeEqual(mac(body, key), given))) return null;
  const hex = body.subarray(0, 16).toString("hex");
  return {
    statementId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    expiresAt: Number(body.readBigUInt64BE(16)),
    issuedAt: Number(body.readBigUInt64BE(24)),
  };
}

/** A link to a statement valid for `days` from now, signed under `master` (`namedKey`). */
export function statementLinkUrl(statementId: string, days: number, master: Buffer, now = Date.now()): string {
  const token = signStatementLink(statementId, { issuedAt: now, expiresAt: now + days * MS_PER_DAY, master });
  return `${appBaseUrl()}${STATEMENT_LINK_PATH}${token}`;
}

/**
 * The statement a link opens, or null for anything that must be refused: a bad token, an expired link, a statement
 * that does not exist, or a link issued before its batch's links were revoked.
 */
export async function resolveStatementLink(
  db: Db,
  token: string,
): Promise<{ statementId: string; gameId: string; batchId: string } | null> {
  const claims = readStatementLink(token);
  // Issued and revoked on the database's clock, a link expires on it too, whatever the clock of this server.
  if (!claims || claims.expiresAt <= (await databaseNowMs(db))) return null;
  const owner = await findStatementOwner(db, { statementId: claims.statementId });
  if (!owner) return null;
  const revokedAt = await getBatchLinkRevocation(db, owner.batchId);
  if (revokedAt && claims.issuedAt <= revokedAt.getTime()) return null;
  return { statementId: claims.statementId, gameId: owner.gameId, batchId: owner.batchId };
}

/**
 * Refuses every link of a batch issued until now; links issued later work again. The batch's emails queued until now
 * and not yet sent go out with no working link (deliverStatement withholds them, or, one already on its way, finds its
 * link revoked), and the batch's send offers them again: whatever moved the revocation (a wrong figure, a wrong
 * address) holds for them too. Returns how many were queued.
 */
export async function revokeStatementLinks(
  db: Db,
  params: { gameId: string; batchId: string },
  acting: ActingAs,
): Promise<{ withheld: number }> {
  if ((await findBatchGame(db, params.batchId)) !== params.gameId)
    throw new AppError("NOT_FOUND", "No such payout batch for this game.");
  return db.transaction().execute(async (trx) => {
    // Alone: a send checking the revocation has either finished its check (its link is issued before the time read
    // next, and ends with the others) or waits for this one to commit (and is withheld).
    await lockBatchLinks(trx, params.batchId);
    // On the database's clock, as links are issued and emails queued (lib/statements/send.ts).
    const at = new Date(await databaseNowMs(trx));
    await revokeBatchLinks(trx, { batchId: params.batchId, at, by: acting.actor?.email ?? null });
    const withheld = await countUnsettledSends(trx, params.batchId);
    await recordAudit(trx, {
      actor: acting.actor,
      via: acting.via,
      action: "statements.links.revoke",
      gameId: params.gameId,
      target: params.batchId,
      outcome: "succeeded",
      detail: { emailsWithheld: withheld },
    });
    return { withheld };
  });
}
