import "server-only";
import { migrationState } from "@/db/migrate";
import { listAppliedMigrations } from "@/db/queries/health";
import type { Db } from "@/db";
import { listSealedValues, readKeyCheck, replaceKeyCheck, updateSealedValue } from "@/db/queries/keys";
import type { ActingAs } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { type Keyring, openSecret, readKeyring, sealSecret } from "@/lib/crypto";
import { AppError } from "@/lib/errors";
import { describeKey, namedBy, sealingKey } from "./check";
import { columnName, SEALED_COLUMNS } from "./sealed-columns";

export type KeyRotationSummary = {
  rotated: true;
  previousKeyId: string;
  keyId: string;
  /** Values re-sealed per column ("game.secret_sealed"). */
  resealed: Record<string, number>;
  total: number;
};

type RotationInput = ActingAs & {
  newKey: Buffer;
  ring?: Keyring;
  /** Runs after every value is re-sealed and before the commit (tests stop a rotation there). */
  beforeCommit?: () => Promise<void>;
};

/**
 * Re-seals every sealed column with a new key and records it as the key check, in one transaction: until the
 * commit the old key opens everything (and a failure anywhere leaves it so); after it only the new key does.
 */
export async function rotateKey(db: Db, input: RotationInput): Promise<KeyRotationSummary> {
  const ring = input.ring ?? readKeyring();
  const next = describeKey(input.newKey);
  return db.transaction().execute(async (trx) => {
    // Nothing recorded yet (nothing sealed, or sealed before key checks were kept): record it first.
    if (!(await readKeyCheck(trx, { lock: "update" }))) await sealingKey(trx, ring);
    const check = await readKeyCheck(trx, { lock: "update" });
    if (!check) throw new Error("no key check to rotate");
    const oldKey = namedBy(check, ring);
    if (next.keyId === check.keyId)
      throw new AppError("INVALID_INPUT", `the secrets are already sealed with key ${next.keyId}`);
    // A fleet's rotation (README, Keys): the instances already hold the new key as PAYOUT_DESK_KEY. Another key would
    // re-seal every value with a key no instance holds, and each would stop opening them at the commit.
    const current = describeKey(ring.current);
    if (ring.previous !== null && current.keyId !== next.keyId)
      throw new AppError(
        "INVALID_INPUT",
        `the new key (id ${next.keyId}) is not PAYOUT_DESK_KEY (id ${current.keyId}), the key the instances were ` +
          "rolled out with: rotate to that key, or roll them out with this one first",
      );

    // A release older than the database's migrations may not know every sealed column: those it left would stay
    // sealed with the old key, and open no more once it is removed.
    const { newer } = migrationState(await listAppliedMigrations(trx));
    if (newer.length > 0)
      throw new AppError(
        "INVALID_INPUT",
        `the database was migrated by a newer release (${newer.join(", ")}): rotate the key with that release, which ` +
          "knows every sealed value",
      );

    const resealed: Record<string, number> = {};
    for (const column of SEALED_COLUMNS) {
      const rows = await listSealedValues(trx, column, { lock: true });
      for (const row of rows) {
        const context = column.context(row.id);
        await updateSealedValue(
          trx,
          column,
          row.id,
          sealSecret(openSecret(row.sealed, context, oldKey), context, input.newKey),
        );
      }
      resealed[columnName(column)] = rows.length;
    }
    await replaceKeyCheck(trx, next);
    const total = Object.values(resealed).reduce((sum, n) => sum + n, 0);
    await recordAudit(trx, {
      actor: input.actor,
      via: input.via,
      action: "keys.rotate",
      target: next.keyId,
      outcome: "succeeded",
      detail: { via: input.via, previousKeyId: check.keyId, keyId: next.keyId, resealed, total },
    });
    await input.beforeCommit?.();
    return { rotated: true, previousKeyId: check.keyId, keyId: next.keyId, resealed, total };
  });
}
