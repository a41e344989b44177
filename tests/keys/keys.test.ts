import { sql } from "kysely";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSecret, keyId } from "../../lib/crypto";
import { readGameCredentials, rotateWebhookSecret, saveGame } from "../../lib/games/games";
import { describeKey, KeyMismatchError, verifyKeys } from "../../lib/keys/check";
import { rotateKey } from "../../lib/keys/rotate";
import { SEALED_COLUMNS } from "../../lib/keys/sealed-columns";
import { listSealedValues } from "../../db/queries/keys";
import { createTestDatabase, type TestDatabase } from "../support/db";

// This process seals with OLD (PAYOUT_DESK_KEY); the rings below stand for other processes.
const OLD = randomBytes(32);
const NEW = randomBytes(32);
const OTHER = randomBytes(32);
process.env.PAYOUT_DESK_KEY = OLD.toString("base64");
process.env.LOG_LEVEL = "silent";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  process.env.DATABASE_URL = t.url;
});
afterAll(async () => t?.drop());

const game = (id: string, webhookSecrets: string[] = [`whsec_${id}_current_1111`, `whsec_${id}_previous_2222`]) => ({
  id,
  name: id,
  environment: "sandbox" as const,
  baseUrl: "http://127.0.0.1:9",
  secret: `gs_test_${id}_secret_9999`,
  webhookSecrets,
});

async function everySealedValue(): Promise<{ context: string; sealed: string }[]> {
  const all = [];
  for (const column of SEALED_COLUMNS) {
    for (const row of await listSealedValues(t.db, column))
      all.push({ context: column.context(row.id), sealed: row.sealed });
  }
  return all;
}

const opens = (value: { context: string; sealed: string }, key: Buffer) => {
  try {
    openSecret(value.sealed, value.context, key);
    return true;
  } catch {
    return false;
  }
};

function mismatch(work: () => Promise<unknown>): Promise<KeyMismatchError> {
  return work().then(
    () => {
      throw new Error("the key was accepted");
    },
    (error: unknown) => {
      if (error instanceof KeyMismatchError) return error;
      throw error;
    },
  );
}

describe("the key check", () => {
  it(
    "is recorded when the first secret is sealed, as a public " + "id and a fingerprint that reveal nothing of the key",
    async () => {
      expect(await verifyKeys(t.db, { current: OTHER, previous: null })).toBeNull();
      expect(await t.db.selectFrom("key_check").selectAll().execute()).toEqual([]);

      await saveGame(t.db, game("k1"), { replace: false, as: { actor: null, via: "cli" } });
      const [row, ...more] = await t.db.selectFrom("key_check").selectAll().execute();
      expect(more).toEqual([]);
      expect(row).toMatchObject({ key_id: describeKey(OLD).keyId, fingerprint: describeKey(OLD).fingerprint });
      expect(row?.key_id).toMatch(/^[0-9a-f]{12}$/);
      const text = JSON.stringify(row);
      for (const form of ["base64", "base64url", "hex"] as const)
        expect(text).not.toContain(OLD.toString(form).slice(0, 16));
    },
  );

  it("refuses another key with one line naming the stored key id", async () => {
    const error = await mismatch(() => verifyKeys(t.db, { current: OTHER, previous: null }));
    expect(error.message).toBe(
      "PAYOUT_DESK_KEY is not the key these secrets were sealed with; " +
        `the stored key id is ${keyId(OLD)} (this key's id is ${keyId(OTHER)})`,
    );
    expect(await verifyKeys(t.db, { current: OLD, previous: null })).toEqual({ keyId: keyId(OLD) });
    // During a rotation's rollout the sealing key may be the previous one.
    expect(await verifyKeys(t.db, { current: NEW, previous: OLD })).toEqual({ keyId: keyId(OLD) });
  });

  it("recognises the key of secrets sealed before key checks were kept, and refuses another", async () => {
    await t.db.deleteFrom("key_check").execute();
    await mismatch(() => verifyKeys(t.db, { current: OTHER, previous: null })).then((error) =>
      expect(error.message).toMatch(
        /^PAYOUT_DESK_KEY is not the key these secrets were sealed with; the stored key id is not recorded/,
      ),
    );
    expect(await verifyKeys(t.db, { current: OLD, previous: null })).toEqual({ keyId: keyId(OLD) });
    expect(await t.db.selectFrom("key_check").select("key_id").execute()).toEqual([{ key_id: keyId(OLD) }]);
  });
});

describe("key rotation", () => {
  it("stops before its commit and leaves everything sealed with the old key", async () => {
    await saveGame(t.db, game("k2", ["whsec_k2_only_3333"]), { replace: false, as: { actor: null, via: "cli" } });
    const before = await everySealedValue();
    const failure = rotateKey(t.db, {
      newKey: NEW,
      actor: null,
      via: "cli",
      ring: { current: OLD, previous: null },
      beforeCommit: async () => {
        throw new Error("stopped between re-sealing and commit");
      },
    });
    await expect(failure).rejects.toThrow("stopped between re-sealing and commit");
    expect(await everySealedValue()).toEqual(before);
    expect((await everySealedValue()).every((v) => opens(v, OLD))).toBe(true);
    expect(await t.db.selectFrom("key_check").select("key_id").execute()).toEqual([{ key_id: keyId(OLD) }]);
    expect(await t.db.selectFrom("audit_log").select("id").where("action", "=", "keys.rotate").execute()).toEqual([]);
    expect((await readGameCredentials(t.db, "k2")).secret).toBe("gs_test_k2_secret_9999");
  });

  it("seals what is written during the rollout with the key the database names", async () => {
    // A process that already holds NEW (and OLD as the previous key) still seals with OLD until the rotation.
    const { sealingKey } = await import("../../lib/keys/check");
    const key = await t.db.transaction().execute((trx) => sealingKey(trx, { current: NEW, previous: OLD }));
    expect(key.equals(OLD)).toBe(true);
  });

  it(
    "re-seals every sealed column with the new key in one audited step; " + "then only the new key opens them",
    async () => {
      await rotateWebhookSecret(t.db, "k2", "whsec_k2_next_4444", { actor: null, via: "cli" });
      const values = await everySealedValue();
      const summary = await rotateKey(t.db, {
        newKey: NEW,
        actor: null,
        via: "cli",
        ring: { current: OLD, previous: null },
      });
      expect(summary).toEqual({
        rotated: true,
        previousKeyId: keyId(OLD),
        keyId: keyId(NEW),
        resealed: {
          "game.secret_sealed": 2,
          "game.webhook_secret_sealed": 2,
          "game.webhook_previous_secret_sealed": 2,
          "payout_profile.details_sealed": 0,
          "payout_profile_change.details_sealed": 0,
          "payment_file.content_sealed": 0,
        },
        total: 6,
      });
      const after = await everySealedValue();
      expect(after).toHaveLength(values.length);
      expect(after.every((v) => opens(v, NEW) && !opens(v, OLD))).toBe(true);
      expect(after.map((v) => openSecret(v.sealed, v.context, NEW))).toEqual(
        values.map((v) => openSecret(v.sealed, v.context, OLD)),
      );
      expect(await t.db.selectFrom("key_check").select("key_id").execute()).toEqual([{ key_id: keyId(NEW) }]);
      const audit = await t.db
        .selectFrom("audit_log")
        .select(["action", "target", "detail", "actor_id"])
        .where("action", "=", "keys.rotate")
        .execute();
      expect(audit).toEqual([
        {
          action: "keys.rotate",
          target: keyId(NEW),
          actor_id: null,
          detail: expect.objectContaining({ via: "cli", previousKeyId: keyId(OLD), total: 6 }),
        },
      ]);
      await mismatch(() => verifyKeys(t.db, { current: OLD, previous: null }));
      expect(await verifyKeys(t.db, { current: NEW, previous: null })).toEqual({ keyId: keyId(NEW) });
      // This process still holds only OLD: its secrets no longer open.
      await expect(readGameCredentials(t.db, "k1")).rejects.toThrow();
    },
  );

  it("refuses to rotate to the key in use, and a process holding neither key", async () => {
    await expect(
      rotateKey(t.db, { newKey: NEW, actor: null, via: "cli", ring: { current: NEW, previous: null } }),
    ).rejects.toThrow(/already sealed with key/);
    await mismatch(() =>
      rotateKey(t.db, { newKey: OTHER, actor: null, via: "cli", ring: { current: OLD, previous: null } }),
    );
  });

  it("refuses, in a fleet's rotation, a new key that is not the one the instances were rolled out with", async () => {
    // The instances hold OLD as PAYOUT_DESK_KEY and NEW (stored) as the previous key: a rotation to OTHER would leave
    // every value sealed with a key none of them holds.
    await expect(
      rotateKey(t.db, { newKey: OTHER, actor: null, via: "cli", ring: { current: OLD, previous: NEW } }),
    ).rejects.toThrow(`the new key (id ${keyId(OTHER)}) is not PAYOUT_DESK_KEY (id ${keyId(OLD)})`);
    expect(await verifyKeys(t.db, { current: NEW, previous: null })).toEqual({ keyId: keyId(NEW) });
  });

  it("refuses when the database was migrated by a newer release, whose sealed columns it may not know", async () => {
    const newer = "2999_01_01_0000_sealed_elsewhere";
    await sql`insert into kysely_migration (name, timestamp) values (${newer}, now()::text)`.execute(t.db);
    try {
      // Back to OLD, rolled out as PAYOUT_DESK_KEY with NEW (stored) as the previous key: allowed but for the release.
      await expect(
        rotateKey(t.db, { newKey: OLD, actor: null, via: "cli", ring: { current: OLD, previous: NEW } }),
      ).rejects.toThrow(`the database was migrated by a newer release (${newer}): rotate the key with that release`);
    } finally {
      await sql`delete from kysely_migration where name = ${newer}`.execute(t.db);
    }
    expect((await everySealedValue()).every((v) => opens(v, NEW))).toBe(true);
  });
});
