import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getDb } from "../../db";
import { insertKeyCheckIfAbsent } from "../../db/queries/keys";
import { keyId } from "../../lib/crypto";
import { describeKey } from "../../lib/keys/check";
import { register } from "../../instrumentation";
import { createTestDatabase, type TestDatabase } from "../support/db";

const SEALED_WITH = randomBytes(32);
const GIVEN = randomBytes(32);
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  Object.assign(process.env, {
    DATABASE_URL: t.url,
    PAYOUT_DESK_KEY: GIVEN.toString("base64"),
    NEXT_RUNTIME: "nodejs",
    PAYOUT_DESK_JOBS: "off",
    LOG_LEVEL: "silent",
  });
});
afterAll(async () => {
  await getDb().destroy();
  await t?.drop();
});

describe("the app server's start (instrumentation)", () => {
  it("exits with the one line when PAYOUT_DESK_KEY is not the key the secrets were sealed with", async () => {
    await insertKeyCheckIfAbsent(t.db, describeKey(SEALED_WITH));
    const exit = vi.spyOn(process, "exit").mockImplementation((code) => {
      throw new Error(`exit ${code}`);
    });
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      await expect(register()).rejects.toThrow("exit 1");
      expect(stderr).toHaveBeenCalledWith(
        `PAYOUT_DESK_KEY is not the key these secrets were sealed with; the stored key id is ${keyId(SEALED_WITH)} ` +
          `(this key's id is ${keyId(GIVEN)})\n`,
      );
    } finally {
      exit.mockRestore();
      stderr.mockRestore();
    }
  });

  it("starts with the key the secrets were sealed with", async () => {
    await t.db
      .updateTable("key_check")
      .set({ key_id: keyId(GIVEN), fingerprint: describeKey(GIVEN).fingerprint })
      .execute();
    const exit = vi.spyOn(process, "exit");
    await expect(register()).resolves.toBeUndefined();
    expect(exit).not.toHaveBeenCalled();
  });
});
