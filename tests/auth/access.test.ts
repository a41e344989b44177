import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createUser, listUsers, removeUserAccess, setUserPassword, setUserRole } from "../../lib/auth/users";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { runDesk } from "../support/desk";
import { actAnonymously, actAs } from "../support/next-request";
import { getAuth } from "../../lib/auth/auth";
import pg from "pg";
import { sql } from "kysely";
import { whileInsertsRefused } from "../support/refused-inserts";
import { waitFor } from "../support/wait";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/headers.js", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

/**
 * An admin removes a person's access (they leave, or their password leaked): every session ends and no password
 * signs them in; setting a password gives access back. Against real PostgreSQL and better-auth.
 */

let t: TestDatabase;
const CLI = { actor: null, via: "cli" } as const;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  for (const [email, role] of [
    ["boss@payout-desk.test", "admin"],
    ["leaver@payout-desk.test", "finance"],
  ] as const)
    ids[email] = (await createUser(t.db, { email, role, password: "the-first-password" }, CLI)).id;
});
afterAll(async () => t?.drop());

async function signIn(email: string, password: string): Promise<string> {
  const { signInAction } = await import("../../app/(auth)/sign-in/actions");
  actAnonymously();
  const form = new FormData();
  form.set("email", email);
  form.set("password", password);
  try {
    const result = await signInAction(null, form);
    return result.ok ? "signed in" : (result.message ?? "refused");
  } catch (error) {
    return (error as Error).message === "NEXT_REDIRECT" ? "signed in" : String(error);
  }
}

const auditActions = async () =>
  (await t.db.selectFrom("audit_log").select(["action", "target"]).where("action", "like", "user.%").execute()).map(
    (r) => `${r.action} ${r.target}`,
  );

describe("removing a user's access", () => {
  it("[admin] ends their sessions and their password; a new password gives access back", async () => {
    const response = await getAuth().api.signInEmail({
      body: { email: "leaver@payout-desk.test", password: "the-first-password" },
      asResponse: true,
    });
    const session = response.headers.getSetCookie();
    actAs(session);
    const { getCurrentUser } = await import("../../lib/auth/session");
    expect((await getCurrentUser())?.email).toBe("leaver@payout-desk.test");

    const boss = { actor: { id: ids["boss@payout-desk.test"] as string, email: "boss@payout-desk.test" }, via: "web" };
    const removed = await removeUserAccess(t.db, ids["leaver@payout-desk.test"] as string, boss as never);
    expect(removed.email).toBe("leaver@payout-desk.test");
    expect(removed.sessionsEnded).toBeGreaterThanOrEqual(1);
    expect((await listUsers(t.db)).find((u) => u.email === "leaver@payout-desk.test")?.hasAccess).toBe(false);
    // The session they had is gone; their password signs nobody in.
    const { getCurrentUser: fresh } = await import("../../lib/auth/session");
    actAs(session);
    expect(await fresh()).toBeNull();
    expect(await signIn("leaver@payout-desk.test", "the-first-password")).not.toBe("signed in");

    const back = await setUserPassword(
      t.db,
      { userId: ids["leaver@payout-desk.test"] as string, password: "a-second-password" },
      boss as never,
    );
    expect(back).toMatchObject({ restored: true });
    expect(await signIn("leaver@payout-desk.test", "a-second-password")).toBe("signed in");
    expect(await auditActions()).toEqual(
      expect.arrayContaining([
        "user.remove_access leaver@payout-desk.test",
        "user.restore_access leaver@payout-desk.test",
      ]),
    );
  });

  it("[admin] a password whose audit line cannot be written is not set, and ends no session", async () => {
    const email = "audited@payout-desk.test";
    const id = (await createUser(t.db, { email, role: "finance", password: "the-first-password" }, CLI)).id;
    expect(await signIn(email, "the-first-password")).toBe("signed in");
    const sessions = () => t.db.selectFrom("auth_session").select("id").where("user_id", "=", id).execute();
    const before = await sessions();
    expect(before.length).toBeGreaterThanOrEqual(1);
    // The audit log refuses the line (a full disk, a lost connection: any failure of that write).
    const refusal = { table: "audit_log", message: "audit write refused", when: sql`new.action = 'user.set_password'` };
    await whileInsertsRefused(t.db, refusal, () =>
      expect(setUserPassword(t.db, { userId: id, password: "a-second-password" }, CLI)).rejects.toThrow(
        /audit write refused/,
      ),
    );
    expect(await sessions()).toEqual(before);
    expect(await signIn(email, "a-second-password")).not.toBe("signed in");
    expect(await signIn(email, "the-first-password")).toBe("signed in");
  });

  it("[admin] a user whose audit line cannot be written is not created, and can be created once it can", async () => {
    const email = "unaudited@payout-desk.test";
    const create = () => createUser(t.db, { email, role: "finance", password: "the-first-password" }, CLI);
    const refusal = { table: "audit_log", message: "audit write refused", when: sql`new.action = 'user.create'` };
    await whileInsertsRefused(t.db, refusal, () => expect(create()).rejects.toThrow(/audit write refused/));
    const found = () => t.db.selectFrom("auth_user").select("id").where("email", "=", email).execute();
    expect(await found()).toEqual([]);
    expect(await signIn(email, "the-first-password")).not.toBe("signed in");
    const created = await create();
    expect(await found()).toEqual([{ id: created.id }]);
    expect(await signIn(email, "the-first-password")).toBe("signed in");
  });

  it("[admin] access given back whose audit line cannot be written stays removed", async () => {
    const email = "restored@payout-desk.test";
    const id = (await createUser(t.db, { email, role: "finance", password: "the-first-password" }, CLI)).id;
    await removeUserAccess(t.db, id, CLI);
    const refusal = {
      table: "audit_log",
      message: "audit write refused",
      when: sql`new.action = 'user.restore_access'`,
    };
    await whileInsertsRefused(t.db, refusal, () =>
      expect(setUserPassword(t.db, { userId: id, password: "a-second-password" }, CLI)).rejects.toThrow(
        /audit write refused/,
      ),
    );
    expect((await listUsers(t.db)).find((u) => u.email === email)?.hasAccess).toBe(false);
    expect(await signIn(email, "a-second-password")).not.toBe("signed in");
    // Given back once the line can be written: one password on record, which signs in.
    await expect(setUserPassword(t.db, { userId: id, password: "a-second-password" }, CLI)).resolves.toMatchObject({
      restored: true,
    });
    const accounts = await t.db.selectFrom("auth_account").select("id").where("user_id", "=", id).execute();
    expect(accounts).toHaveLength(1);
    expect(await signIn(email, "a-second-password")).toBe("signed in");
  });

  it("[admin] cannot remove their own access, nor the last admin's who can sign in", async () => {
    const bossId = ids["boss@payout-desk.test"] as string;
    const boss = { actor: { id: bossId, email: "boss@payout-desk.test" }, via: "web" } as const;
    await expect(removeUserAccess(t.db, bossId, boss)).rejects.toThrow(/cannot remove your own access/);
    await expect(removeUserAccess(t.db, bossId, CLI)).rejects.toThrow(/last admin who can sign in/);
    // Nor demote them while they are the only admin who can.
    await expect(setUserRole(t.db, bossId, "viewer", CLI)).rejects.toThrow(/last admin/);
  });

  it("two admins removing each other's access at once: one is refused, an admin can still sign in", async () => {
    const [first, second] = await Promise.all(
      ["first-admin@payout-desk.test", "second-admin@payout-desk.test"].map((email) =>
        createUser(t.db, { email, role: "admin", password: "the-first-password" }, CLI),
      ),
    );
    if (!first || !second) throw new Error("admins not made");
    const bossId = ids["boss@payout-desk.test"] as string;
    await setUserRole(t.db, bossId, "finance", CLI);
    const as = (u: { id: string; email: string }) => ({ actor: { id: u.id, email: u.email }, via: "web" }) as const;
    // Both removals wait behind a transaction holding the admins' rows, so that they run one right after the other.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const holding = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const blocker = t.db.transaction().execute(async (trx) => {
      await sql`select id from auth_user where role = 'admin' for update`.execute(trx);
      locked();
      await held;
    });
    await holding;
    const removals = Promise.allSettled([
      removeUserAccess(t.db, second.id, as(first)),
      removeUserAccess(t.db, first.id, as(second)),
    ]);
    // Both wait for the admins' rows before either reads a count.
    await waitFor(
      async () => {
        const waiting = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query ilike '%from "auth_user"%'`.execute(
          t.db,
        );
        return Number(waiting.rows[0]?.n) >= 2;
      },
      { what: "both removals to wait for the admins' rows" },
    );
    release();
    await blocker;
    const outcomes = await removals;
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(String(refused.reason)).toMatch(/last admin who can sign in/);
    const admins = (await listUsers(t.db)).filter((u) => u.role === "admin" && u.hasAccess);
    expect(admins).toHaveLength(1);
    await setUserRole(t.db, bossId, "admin", CLI);
  });

  it("from the command line: remove-access, then set-password, JSON alone on stdout", async () => {
    const removed = await runDesk(t.url, ["users", "remove-access", "--email", "leaver@payout-desk.test"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ email: "leaver@payout-desk.test" });
    const listed = await runDesk(t.url, ["users", "list"]);
    expect(JSON.parse(listed.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ email: "leaver@payout-desk.test", access: false })]),
    );
    const set = await runDesk(t.url, [
      "users",
      "set-password",
      "--email",
      "leaver@payout-desk.test",
      "--password",
      "a-third-password",
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ email: "leaver@payout-desk.test", restored: true });
    expect(set.stdout + set.stderr).not.toContain("a-third-password");
    expect(await signIn("leaver@payout-desk.test", "a-third-password")).toBe("signed in");
  });

  it("a sign-in checking the password while access is removed makes no session that outlives the removal", async () => {
    const racer = await createUser(
      t.db,
      { email: "racer@payout-desk.test", role: "finance", password: "the-racer-pw" },
      CLI,
    );
    // The removal as removeUserAccess makes it, held open: the user row locked, then sessions and password deleted.
    const removal = new pg.Client({ connectionString: t.url });
    await removal.connect();
    try {
      await removal.query("begin");
      await removal.query("select id from auth_user where id = $1 for update", [racer.id]);
      const signing = signIn("racer@payout-desk.test", "the-racer-pw");
      // The sign-in has read the password and checked it; its new session waits for the user row.
      await waitFor(
        async () => {
          const waiting = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'
              and query ilike 'insert into "auth_session"%'`.execute(t.db);
          return Number(waiting.rows[0]?.n) > 0;
        },
        { what: "the sign-in's session to wait for the removal" },
      );
      await removal.query("delete from auth_session where user_id = $1", [racer.id]);
      await removal.query("delete from auth_account where user_id = $1 and provider_id = 'credential'", [racer.id]);
      await removal.query("commit");
      expect(await signing).toBe("That email and password do not match an account.");
    } finally {
      await removal.end();
    }
    const sessions = await t.db.selectFrom("auth_session").select("id").where("user_id", "=", racer.id).execute();
    expect(sessions).toEqual([]);
  });
});
