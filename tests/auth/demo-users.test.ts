import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoUsers } from "../../bin/demo";
import { getAuth } from "../../lib/auth/auth";
import { ROLES } from "../../lib/auth/roles";
import { setUserPassword } from "../../lib/auth/users";
import { findUserIdByEmail } from "../../db/queries/users";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

let t: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  dataDir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-demo-"));
});
afterAll(async () => {
  await t?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("demo users of the embedded default", () => {
  it("has one user per role (and a second approver), each able to sign in with the printed password", async () => {
    const runtime = {
      databaseUrl: t.url,
      key: process.env.PAYOUT_DESK_KEY ?? "",
      embedded: false,
      // With DATABASE_URL (PAYOUT_DESK_EMULATOR=on) nothing has made the data folder yet.
      dataDir: path.join(dataDir, ".data"),
      stop: async () => {},
    };
    const users = await seedDemoUsers(runtime);
    expect(new Set(users.map((u) => u.role))).toEqual(new Set(ROLES));
    expect(users.filter((u) => u.role === "finance")).toHaveLength(2);
    for (const user of users) {
      const response = await getAuth().api.signInEmail({
        body: { email: user.email, password: user.password ?? "" },
        asResponse: true,
      });
      expect(response.status, user.email).toBe(200);
    }
    // A second start prints the same passwords (kept in the data folder, readable by its owner only) and creates
    // nobody.
    const again = await seedDemoUsers(runtime);
    expect(again).toEqual(users);
    const file = path.join(runtime.dataDir, "demo-users.json");
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual(users);
    const count = await t.db
      .selectFrom("auth_user")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(users.length);

    // A password set since (in Settings or from the command line) is no longer printed, nor kept in the file: the
    // account is listed without one. So is an account the start cannot vouch for once the file is lost.
    const [changed, kept, ...rest] = users;
    const changedId = (await findUserIdByEmail(t.db, changed!.email))!;
    await setUserPassword(t.db, { userId: changedId, password: "set-by-an-admin-1" }, { actor: null, via: "cli" });
    const afterChange = await seedDemoUsers(runtime);
    expect(afterChange).toEqual([{ ...changed!, password: null }, kept, ...rest]);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual([kept, ...rest]);
    await writeFile(file, "[]");
    expect((await seedDemoUsers(runtime)).map((u) => u.password)).toEqual(users.map(() => null));
  });
});
