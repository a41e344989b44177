import { getMigrations } from "better-auth/db/migration";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAuth } from "../../lib/auth/auth";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
});
afterAll(async () => t?.drop());

describe("auth tables", () => {
  it("match what better-auth expects, so it never needs its own migrations", async () => {
    const { toBeCreated, toBeAdded } = await getMigrations(getAuth().options);
    expect(toBeCreated.map((table) => table.table)).toEqual([]);
    expect(toBeAdded.map((table) => `${table.table}: ${Object.keys(table.fields).join(", ")}`)).toEqual([]);
  });

  it("stores scrypt hashes, never the password", async () => {
    const { createUser } = await import("../../lib/auth/users");
    await createUser(
      t.db,
      { email: "hash@payout-desk.test", role: "viewer", password: "plain-text-password" },
      { actor: null, via: "cli" },
    );
    const rows = await t.db.selectFrom("auth_account").select("password").execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.password).not.toContain("plain-text-password");
    expect(rows[0]?.password?.length).toBeGreaterThan(40);
  });
});
