import "server-only";
import type { Db } from "@/db";
import { insertKeyCheckIfAbsent, type KeyCheck, listSealedValues, readKeyCheck } from "@/db/queries/keys";
import { fingerprintMatches, keyFingerprint, keyId, type Keyring, openSecret, readKeyring } from "@/lib/crypto";
import { SEALED_COLUMNS } from "./sealed-columns";

/** The one line an operator reads when the process holds another key than the one the secrets are sealed with. */
export class KeyMismatchError extends Error {
  constructor(
    readonly storedKeyId: string | null,
    readonly givenKeyId: string,
  ) {
    const stored = storedKeyId ?? "not recorded (secrets sealed before key ids were kept)";
    super(
      `PAYOUT_DESK_KEY is not the key these secrets were sealed with; the stored key id is ${stored} (this key's id ` +
        `is ${givenKeyId})`,
    );
    this.name = "KeyMismatchError";
  }
}

export function describeKey(master: Buffer): { keyId: string; fingerprint: string } {
  return { keyId: keyId(master), fingerprint: keyFingerprint(master) };
}

export function keyOf(check: KeyCheck, ring: Keyring): Buffer | null {
  return (
    [ring.current, ring.previous].find(
      (key): key is Buffer => key !== null && fingerprintMatches(key, check.fingerprint),
    ) ?? null
  );
}

/** The key of the ring the stored check names; refuses a process holding neither. */
export function namedBy(check: KeyCheck, ring: Keyring): Buffer {
  const key = keyOf(check, ring);
  if (!key) throw new KeyMismatchError(check.keyId, keyId(ring.current));
  return key;
}

/** A stored value from before key checks were kept: the key that opens it is the one it was sealed with. */
async function recordLegacyKeyCheck(db: Db, ring: Keyring): Promise<{ keyId: string } | null> {
  for (const column of SEALED_COLUMNS) {
    const [sample] = await listSealedValues(db, column, { limit: 1 });
    if (!sample) continue;
    for (const key of [ring.current, ring.previous]) {
      if (!key) continue;
      try {
        openSecret(sample.sealed, column.context(sample.id), key);
      } catch {
        continue;
      }
      await insertKeyCheckIfAbsent(db, describeKey(key));
      return { keyId: keyId(key) };
    }
    throw new KeyMismatchError(null, keyId(ring.current));
  }
  return null;
}

/**
 * Refuses a process whose keys cannot open the stored secrets: the stored key check must match PAYOUT_DESK_KEY or,
 * during a rotation's rollout, PAYOUT_DESK_KEY_PREVIOUS. Nothing sealed yet passes. Returns the stored key id.
 */
export async function verifyKeys(db: Db, ring: Keyring = readKeyring()): Promise<{ keyId: string } | null> {
  const check = await readKeyCheck(db);
  if (!check) return recordLegacyKeyCheck(db, ring);
  namedBy(check, ring);
  return { keyId: check.keyId };
}

/**
 * The key to seal a new value with, inside the transaction that writes it: the one the database names (during a
 * rollout that may be PAYOUT_DESK_KEY_PREVIOUS), recorded from PAYOUT_DESK_KEY when this is the first sealed value.
 * The shared lock makes a concurrent rotation wait for this write, or this write wait for the rotation.
 */
export async function sealingKey(trx: Db, ring: Keyring = readKeyring()): Promise<Buffer> {
  let check = await readKeyCheck(trx, { lock: "share" });
  if (!check) {
    if (!(await recordLegacyKeyCheck(trx, ring))) await insertKeyCheckIfAbsent(trx, describeKey(ring.current));
    check = await readKeyCheck(trx, { lock: "share" });
    if (!check) throw new Error("the key check vanished while sealing");
  }
  return namedBy(check, ring);
}

/**
 * The key to sign with where no value is sealed (statement links): the one the database names, like `sealingKey`
 * but without waiting for a running rotation, so every instance signs alike during a rotation's rollout and what is
 * signed once the rotation commits outlives the old key; PAYOUT_DESK_KEY while nothing is sealed.
 */
export async function namedKey(db: Db, ring: Keyring = readKeyring()): Promise<Buffer> {
  const check = await readKeyCheck(db);
  return check ? namedBy(check, ring) : ring.current;
}
