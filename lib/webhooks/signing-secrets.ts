import "server-only";
import { randomBytes } from "node:crypto";
import type { Db } from "@/db";
import { findWebhookSigningSecrets, type SealedSigningSecrets } from "@/db/queries/webhook-receiving";
import { openSecret } from "@/lib/crypto";
import { webhookSecretContext } from "@/lib/keys/sealed-columns";

/**
 * The webhook signing secrets of each game, opened once and kept in this process's memory for a short while, so that
 * a flood of forged deliveries costs no decryption (and no more than one read per game and TTL). They stay sealed at
 * rest. Games that do not exist are remembered the same way, so a made-up id costs what a real one does, but apart:
 * a flood of made-up ids pushes out only other made-up ids, never a real game's secrets.
 *
 * Changes made in this process (lib/games/games.ts) forget the entry at once. A change made by another process (another
 * web server, the CLI) is caught before a delivery is accepted: once a signature verifies, `stillCurrent` compares what
 * was opened with what the database holds (one read, for verified deliveries only), and a secret replaced or revoked
 * elsewhere is read again, so a leaked secret stops verifying on every server at once. A signature that matches none
 * of the secrets kept asks the database too (`changedSinceKept`), at most once a second per game: a secret rotated or
 * a game added elsewhere verifies here at once, and a flood of forged deliveries costs a read a second, not one each.
 */
export const SIGNING_SECRET_TTL_MS = 30_000;
/** How often a signature that matched nothing kept has the database asked whether the game's secrets changed. */
export const MISMATCH_RECHECK_MS = 1_000;
const MAX_ENTRIES = 1_000;

/** Secrets a game can verify with: the current one and, during a rotation, the previous one. */
export const SIGNING_SLOTS = 2;

type Opened = {
  current: string | null;
  previous: string | null;
  previousExpiresAtMs: number | null;
  /** What the database held when they were opened: sealed values and the previous one's expiry. */
  stamp: string;
};
type Entry = { opened: Opened | null; loadedAtMs: number; recheckedAtMs?: number };
type Kept = { games: Map<string, Entry>; unknown: Map<string, Entry> };

const holder = globalThis as unknown as { __payoutDeskSigningSecretsKept?: Kept };
holder.__payoutDeskSigningSecretsKept ??= { games: new Map(), unknown: new Map() };
const kept: Kept = holder.__payoutDeskSigningSecretsKept;
const keptFor = (gameId: string): Entry | undefined => kept.games.get(gameId) ?? kept.unknown.get(gameId);
const forget = (gameId: string) => {
  kept.games.delete(gameId);
  kept.unknown.delete(gameId);
};

/**
 * Filler secrets for the slots a game does not use (or every slot of a game that does not exist): random per
 * process, never disclosed, so no signature can match them; they make every check compute the same HMACs.
 */
const FILLER = Array.from({ length: SIGNING_SLOTS }, () => `filler:${randomBytes(32).toString("base64")}`);

const stampOf = (sealed: SealedSigningSecrets | null | undefined): string =>
  sealed ? JSON.stringify([sealed.current, sealed.previous, sealed.previousExpiresAt?.getTime() ?? null]) : "none";

async function load(db: Db, gameId: string): Promise<Opened | null> {
  const sealed = await findWebhookSigningSecrets(db, gameId);
  if (!sealed) return null;
  const context = webhookSecretContext(gameId);
  return {
    current: sealed.current === null ? null : openSecret(sealed.current, context),
    previous: sealed.previous === null ? null : openSecret(sealed.previous, context),
    previousExpiresAtMs: sealed.previousExpiresAt?.getTime() ?? null,
    stamp: stampOf(sealed),
  };
}

/**
 * Whether the secrets a delivery was verified with (their `stamp`) are still the ones the database holds; when not,
 * the entry kept is forgotten (the next `signingSecretsFor` reads them again).
 */
export async function stillCurrent(db: Db, gameId: string, stamp: string): Promise<boolean> {
  const current = stampOf(await findWebhookSigningSecrets(db, gameId)) === stamp;
  // An id kept as no game has the stamp "none": forgotten too when the game now exists.
  if (!current && (keptFor(gameId)?.opened?.stamp ?? "none") === stamp) forget(gameId);
  return current;
}

/**
 * After a signature matched none of the secrets kept (`stamp`): whether the database holds others now (rotated, or the
 * game added, by another server or the CLI within the TTL), asked at most once per MISMATCH_RECHECK_MS and game, and
 * not for secrets read that moment. When it does, the entry is forgotten: the caller reads and verifies again.
 */
export async function changedSinceKept(db: Db, gameId: string, stamp: string, nowMs = Date.now()): Promise<boolean> {
  const entry = keptFor(gameId);
  if (!entry || (entry.opened?.stamp ?? "none") !== stamp) return false;
  const last = entry.recheckedAtMs ?? entry.loadedAtMs;
  if (nowMs >= last && nowMs - last < MISMATCH_RECHECK_MS) return false;
  entry.recheckedAtMs = nowMs;
  return !(await stillCurrent(db, gameId, stamp));
}

export type SigningSecrets = {
  /** Always SIGNING_SLOTS secrets: the game's (current first), then fillers. */
  secrets: string[];
  /** How many of `secrets` are the game's; a match beyond them never counts. */
  real: number;
  /** Whether the game exists (only for counting: the answer to the caller never depends on it). */
  known: boolean;
  /** What the database held when these secrets were opened (for `stillCurrent`). */
  stamp: string;
};

/**
 * The secrets to verify a delivery for `gameId` with (null for an id that cannot be a game). Reads and opens them at
 * most once per TTL; throws when the database cannot be read.
 */
export async function signingSecretsFor(db: Db, gameId: string | null, nowMs = Date.now()): Promise<SigningSecrets> {
  let opened: Opened | null = null;
  if (gameId !== null) {
    let entry = keptFor(gameId);
    if (!entry || nowMs - entry.loadedAtMs >= SIGNING_SECRET_TTL_MS || nowMs < entry.loadedAtMs) {
      entry = { opened: await load(db, gameId), loadedAtMs: nowMs };
      forget(gameId);
      const into = entry.opened ? kept.games : kept.unknown;
      // Oldest first: a Map iterates in insertion order.
      while (into.size >= MAX_ENTRIES) into.delete(into.keys().next().value as string);
      into.set(gameId, entry);
    }
    opened = entry.opened;
  }
  const own: string[] = [];
  if (opened?.current) own.push(opened.current);
  if (opened?.previous && opened.previousExpiresAtMs !== null && opened.previousExpiresAtMs > nowMs)
    own.push(opened.previous);
  return {
    secrets: [...own, ...FILLER.slice(own.length)],
    real: own.length,
    known: opened !== null,
    stamp: opened?.stamp ?? "none",
  };
}

/** Forgets what is kept for a game (its secrets changed), or for every game. */
export function forgetSigningSecrets(gameId?: string): void {
  if (gameId === undefined) {
    kept.games.clear();
    kept.unknown.clear();
  } else forget(gameId);
}
