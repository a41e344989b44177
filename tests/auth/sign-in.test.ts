import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { createDb } from "@/db";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { authCookieSecret, isSignedSessionCookie } from "../../lib/auth/session-cookie";
import { createUser } from "../../lib/auth/users";
import * as signIn from "../../lib/auth/sign-in";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAnonymously, actAs, currentCookies } from "../support/next-request";
import { signInAs } from "../support/users";

vi.mock("next/headers", () => import("../support/next-request"));
// better-auth's Next.js cookie plugin imports the module by its file name.
vi.mock("next/headers.js", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await createUser(
    t.db,
    { email: "limited@payout-desk.test", role: "viewer", password: "the-right-password" },
    { actor: null, via: "cli" },
  );
});
afterAll(async () => t?.drop());

function form(email: string, password: string): FormData {
  const data = new FormData();
  data.set("email", email);
  data.set("password", password);
  return data;
}

describe("sign-in", () => {
  it("signs in with the right password and sets the session cookie", async () => {
    const { signInAction } = await import("../../app/(auth)/sign-in/actions");
    actAnonymously();
    await expect(signInAction(null, form("limited@payout-desk.test", "the-right-password"))).rejects.toThrow(
      "NEXT_REDIRECT",
    );
    const cookie = currentCookies().find((c) => c.startsWith("payout-desk.session_token="));
    expect(cookie).toBeDefined();
    // Signed as the proxy checks it before letting a large upload through (proxy.ts).
    const value = (cookie as string).slice("payout-desk.session_token=".length);
    expect(isSignedSessionCookie(value, [authCookieSecret(process.env.PAYOUT_DESK_KEY as string)])).toBe(true);
    expect(isSignedSessionCookie(value, [authCookieSecret(randomBytes(32).toString("base64"))])).toBe(false);
  });

  it("leaves no session when the sign-in's audit line cannot be written", async () => {
    const { signInAction } = await import("../../app/(auth)/sign-in/actions");
    const email = "unrecorded@payout-desk.test";
    const user = await createUser(
      t.db,
      { email, role: "viewer", password: "the-right-password" },
      { actor: null, via: "cli" },
    );
    // The database refuses the line (as it would failing over at that instant): after better-auth made the session.
    await sql`create function refuse_sign_in_line() returns trigger language plpgsql as $$
      begin if new.action = 'user.sign_in' and new.target = ${sql.lit(email)} then raise exception 'unavailable';
      end if; return new; end $$`.execute(t.db);
    await sql`create trigger refuse_sign_in_line before insert on audit_log
      for each row execute function refuse_sign_in_line()`.execute(t.db);
    const sessions = () => t.db.selectFrom("auth_session").select("id").where("user_id", "=", user.id).execute();
    try {
      actAnonymously();
      const refused = await signInAction(null, form(email, "the-right-password"));
      expect(refused).toMatchObject({ ok: false });
      expect(await sessions()).toEqual([]);
    } finally {
      await sql`drop trigger refuse_sign_in_line on audit_log`.execute(t.db);
      await sql`drop function refuse_sign_in_line()`.execute(t.db);
    }
    // Written, the sign-in keeps its session.
    await expect(signInAction(null, form(email, "the-right-password"))).rejects.toThrow("NEXT_REDIRECT");
    expect(await sessions()).toHaveLength(1);
  });

  it("refuses after 5 failures for one email, even with the right password", async () => {
    const { signInAction } = await import("../../app/(auth)/sign-in/actions");
    actAnonymously();
    for (let i = 0; i < 5; i++) {
      await expect(signInAction(null, form("limited@payout-desk.test", `wrong-${i}`))).resolves.toMatchObject({
        ok: false,
        code: "UNAUTHENTICATED",
      });
    }
    await expect(signInAction(null, form("limited@payout-desk.test", "the-right-password"))).resolves.toMatchObject({
      ok: false,
      code: "RATE_LIMITED",
    });
    expect(currentCookies()).toEqual([]);
  });

  it("counts parallel guesses: ten at once, at most five are checked against the password", async () => {
    const { signInAction } = await import("../../app/(auth)/sign-in/actions");
    await createUser(
      t.db,
      { email: "parallel@payout-desk.test", role: "viewer", password: "the-right-password" },
      { actor: null, via: "cli" },
    );
    actAnonymously();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => signInAction(null, form("parallel@payout-desk.test", `wrong-${i}`))),
    );
    const codes = results.map((r) => (r.ok ? "ok" : r.code));
    expect(codes.filter((c) => c === "UNAUTHENTICATED")).toHaveLength(5);
    expect(codes.filter((c) => c === "RATE_LIMITED")).toHaveLength(5);
  });

  it("ignores a client-written X-Forwarded-For: no shared lockout, no per-address bypass", async () => {
    const { clientAddress } = await import("../../lib/auth/sign-in");
    const spoofed = new Headers({ "x-forwarded-for": "203.0.113.9, 10.0.0.1" });
    expect(clientAddress(spoofed, false)).toBeNull();
    // Behind a trusted proxy, the hop that proxy appended (right-most) is the client.
    expect(clientAddress(spoofed, true)).toBe("10.0.0.1");
    // An IPv6 client counts by its /64: the addresses of one line or machine are one address to the limits.
    const from = (address: string) => clientAddress(new Headers({ "x-forwarded-for": address }), true);
    expect(from("2001:db8:1:2::1e")).toBe("2001:db8:1:2::/64");
    expect(from("2001:0db8:0001:0002:ffff:0:0:1")).toBe("2001:db8:1:2::/64");
    expect(from("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(from("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(from("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(from("::ffff:c000:207")).toBe("192.0.2.7");
    expect(from("2001:db8:1:3::1")).not.toBe(from("2001:db8:1:2::1"));
    // Many failures for other emails do not lock out a user whose own email has no failures.
    const { signInAction } = await import("../../app/(auth)/sign-in/actions");
    await createUser(
      t.db,
      { email: "bystander@payout-desk.test", role: "viewer", password: "the-right-password" },
      { actor: null, via: "cli" },
    );
    for (let i = 0; i < 35; i++) await signInAction(null, form(`nobody-${i}@payout-desk.test`, "guess-guess"));
    actAnonymously();
    await expect(signInAction(null, form("bystander@payout-desk.test", "the-right-password"))).rejects.toThrow(
      "NEXT_REDIRECT",
    );
  });

  it("names the field of invalid input", async () => {
    const { signInAction } = await import("../../app/(auth)/sign-in/actions");
    const result = await signInAction(null, form("not-an-email", ""));
    expect(result).toMatchObject({ ok: false, code: "INVALID_INPUT" });
    expect(result.ok ? "" : result.message).toMatch(/^Email .*; Password /);
  });
});

/** The limits' clock: Date is faked (timers are not), so the rules see the time the test sets; nothing waits. */
async function atTime<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(ms);
  try {
    return await fn();
  } finally {
    vi.useRealTimers();
  }
}

/** One attempt through the lib, at a given time: "failed" (checked, wrong), "refused" (not checked), or "allowed". */
async function attempt(email: string, nowMs: number, address: string | null = null): Promise<"checked" | "refused"> {
  try {
    await atTime(nowMs, () => signIn.beginSignInAttempt(t.db, email, address));
    return "checked";
  } catch (error) {
    if ((error as { code?: string }).code === "RATE_LIMITED") return "refused";
    throw error;
  }
}

describe("sign-in limits without lockout", () => {
  const T0 = Date.UTC(2030, 0, 1, 9, 0, 0);
  const S = 1_000;

  it(
    "lets the account owner in once the delay has passed, " + "however many failures an anonymous caller made",
    async () => {
      const { signInAction } = await import("../../app/(auth)/sign-in/actions");
      await createUser(
        t.db,
        { email: "target@payout-desk.test", role: "viewer", password: "the-right-password" },
        { actor: null, via: "cli" },
      );
      actAnonymously();
      for (let i = 0; i < 5; i++) {
        await atTime(T0 + i * S, () => signInAction(null, form("target@payout-desk.test", `wrong-${i}`)));
      }
      await expect(
        atTime(T0 + 5 * S, () => signInAction(null, form("target@payout-desk.test", "the-right-password"))),
      ).resolves.toMatchObject({
        ok: false,
        code: "RATE_LIMITED",
        message: expect.stringMatching(/try again in \d+ seconds/i),
      });
      await expect(
        atTime(T0 + 4 * S + 15 * S, () => signInAction(null, form("target@payout-desk.test", "the-right-password"))),
      ).rejects.toThrow("NEXT_REDIRECT");
    },
  );

  it("grows the delay with each further failure, up to a cap", async () => {
    const email = "grows@payout-desk.test";
    let now = T0;
    for (let i = 0; i < 5; i++) {
      now += S;
      expect(await attempt(email, now)).toBe("checked");
    }
    // The fifth failure asks for 15 s, the sixth for 30 s, then 60, 120, ... never more than 10 minutes.
    const expected = [15, 30, 60, 120, 240, 480, 600, 600];
    for (const seconds of expected) {
      expect(await attempt(email, now + (seconds - 1) * S)).toBe("refused");
      now += seconds * S;
      expect(await attempt(email, now)).toBe("checked");
    }
    expect(signIn.accountDelaySeconds(4)).toBe(0);
    expect(signIn.accountDelaySeconds(5)).toBe(15);
    expect(signIn.accountDelaySeconds(50)).toBe(600);
  });

  it("does not count or lengthen anything for attempts refused during a delay", async () => {
    const email = "hammered@payout-desk.test";
    for (let i = 0; i < 5; i++) await attempt(email, T0 + i * S);
    for (let i = 0; i < 100; i++) expect(await attempt(email, T0 + 5 * S + i * 100)).toBe("refused");
    expect(await attempt(email, T0 + 4 * S + 15 * S)).toBe("checked");
  });

  it("forgets failures after a successful sign-in", async () => {
    const email = "recovers@payout-desk.test";
    for (let i = 0; i < 4; i++) await attempt(email, T0 + i * S);
    const id = await atTime(T0 + 10 * S, () => signIn.beginSignInAttempt(t.db, email, null));
    await signIn.markSignInSucceeded(t.db, id, { user: { id: "u-recovers", email }, via: "web" });
    for (let i = 0; i < 4; i++) expect(await attempt(email, T0 + 11 * S + i * S)).toBe("checked");
    // The audit line names the person who signed in as its actor.
    const line = await t.db
      .selectFrom("audit_log")
      .select(["actor_id", "actor_email", "target"])
      .where("action", "=", "user.sign_in")
      .where("target", "=", email)
      .executeTakeFirstOrThrow();
    expect(line).toEqual({ actor_id: "u-recovers", actor_email: email, target: email });
  });

  it("limits one address behind a trusted proxy across accounts, without holding up other addresses", async () => {
    for (let i = 0; i < signIn.SIGN_IN_LIMITS.perAddress; i++) {
      expect(await attempt(`spray-${i}@payout-desk.test`, T0 + i * S, "198.51.100.7")).toBe("checked");
    }
    expect(await attempt("spray-last@payout-desk.test", T0 + 40 * S, "198.51.100.7")).toBe("refused");
    expect(await attempt("spray-last@payout-desk.test", T0 + 40 * S, "198.51.100.8")).toBe("checked");
    // The address's window is 15 minutes.
    expect(await attempt("spray-last@payout-desk.test", T0 + 16 * 60 * S, "198.51.100.7")).toBe("checked");
  });

  it("counts parallel guesses from one address across accounts: at most the address's limit are checked", async () => {
    const limit = signIn.SIGN_IN_LIMITS.perAddress;
    // As many connections as guesses, as a fleet of servers has: every guess is in the database at once.
    const wide = createDb(t.url, { max: limit + 10 });
    try {
      const outcomes = await Promise.all(
        Array.from({ length: limit + 10 }, (_, i) =>
          signIn.beginSignInAttempt(wide, `burst-${i}@payout-desk.test`, "198.51.100.99", T0).then(
            () => "checked",
            (error: { code?: string }) => (error.code === "RATE_LIMITED" ? "refused" : Promise.reject(error)),
          ),
        ),
      );
      expect(outcomes.filter((o) => o === "checked")).toHaveLength(limit);
      expect(outcomes.filter((o) => o === "refused")).toHaveLength(10);
    } finally {
      await wide.destroy();
    }
  });

  it("does not hold up an address that signed in to the account before", async () => {
    const email = "usual@payout-desk.test";
    const id = await atTime(T0, () => signIn.beginSignInAttempt(t.db, email, "203.0.113.50"));
    await signIn.markSignInSucceeded(t.db, id, { user: { id: "u-usual", email }, via: "web" });
    // The sign-in's audit line keeps the address it came from (behind the trusted proxy).
    const line = await t.db
      .selectFrom("audit_log")
      .select("detail")
      .where("action", "=", "user.sign_in")
      .where("target", "=", email)
      .executeTakeFirstOrThrow();
    expect(line.detail).toEqual({ address: "203.0.113.50" });
    for (let i = 0; i < 8; i++) await attempt(email, T0 + (i + 1) * S, "192.0.2.66");
    expect(await attempt(email, T0 + 10 * S, "192.0.2.66")).toBe("refused");
    expect(await attempt(email, T0 + 10 * S, "203.0.113.50")).toBe("checked");
  });

  it("[admin] sees the limited accounts and addresses and clears one, audited", async () => {
    const email = "cleared@payout-desk.test";
    const now = Date.now();
    for (let i = 0; i < 5; i++) await attempt(email, now - 10 * S + i * S);
    expect(await attempt(email, now)).toBe("refused");
    const before = await signIn.listSignInLimits(t.db, now);
    expect(before.accounts.find((a) => a.email === email)).toMatchObject({
      failures: 5,
      delayedUntil: expect.any(String),
    });

    const { clearSignInLimitAction } = await import("../../app/(desk)/settings/users/actions");
    actAs(await signInAs(t.db, "admin", "limits-admin@payout-desk.test"));
    const data = new FormData();
    data.set("kind", "account");
    data.set("value", email);
    await expect(clearSignInLimitAction(null, data)).resolves.toMatchObject({ ok: true });
    expect((await signIn.listSignInLimits(t.db, now)).accounts.find((a) => a.email === email)).toBeUndefined();
    expect(await attempt(email, now)).toBe("checked");
    const audit = await t.db
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "user.sign_in_limit_clear")
      .execute();
    expect(audit).toEqual([
      expect.objectContaining({ actor_email: "limits-admin@payout-desk.test", target: email, outcome: "succeeded" }),
    ]);
    expect(audit[0]?.detail).toMatchObject({ kind: "account", failures: 5 });
  });

  it("[admin] sees an account of this desk among the limited ones whatever failures made-up emails have", async () => {
    const email = "listed-real@payout-desk.test";
    await createUser(t.db, { email, role: "viewer", password: "the-right-password" }, { actor: null, via: "cli" });
    const now = Date.now();
    const failures = (who: string, count: number) =>
      Array.from({ length: count }, (_, i) => ({ email: who, ip: "", succeeded: false, at: new Date(now - i * S) }));
    const madeUp = Array.from({ length: 60 }, (_, n) => failures(`nobody-${n}@example.test`, 9)).flat();
    await t.db
      .insertInto("sign_in_attempt")
      .values([...madeUp, ...failures(email, 6)])
      .execute();
    const { accounts } = await signIn.listSignInLimits(t.db, now);
    expect(accounts).toHaveLength(50);
    expect(accounts.find((a) => a.email === email)).toMatchObject({ failures: 6 });
  });

  it("[finance] cannot clear a limit", async () => {
    const { clearSignInLimitAction } = await import("../../app/(desk)/settings/users/actions");
    actAs(await signInAs(t.db, "finance"));
    const data = new FormData();
    data.set("kind", "account");
    data.set("value", "grows@payout-desk.test");
    await expect(clearSignInLimitAction(null, data)).resolves.toMatchObject({ ok: false, code: "FORBIDDEN" });
  });
});

describe("sign-in attempts kept", () => {
  it("forgets failures past the account's memory and successes past the days an address stays known", async () => {
    const now = Date.parse("2026-11-26T12:00:00Z");
    const hoursAgo = (h: number) => new Date(now - h * 3_600_000);
    const rows = [
      { email: "prune-a@example.test", succeeded: false, at: hoursAgo(25) },
      { email: "prune-a@example.test", succeeded: false, at: hoursAgo(23) },
      { email: "prune-b@example.test", succeeded: true, at: hoursAgo(31 * 24) },
      { email: "prune-b@example.test", succeeded: true, at: hoursAgo(29 * 24) },
    ];
    await t.db
      .insertInto("sign_in_attempt")
      .values(rows.map((r) => ({ ...r, ip: "203.0.113.9" })))
      .execute();
    expect(await signIn.pruneSignInAttempts(t.db, now)).toBeGreaterThanOrEqual(2);
    const left = await t.db
      .selectFrom("sign_in_attempt")
      .select(["email", "succeeded", "at"])
      .where("email", "like", "prune-%")
      .orderBy("at")
      .execute();
    expect(left.map((r) => [r.email, r.succeeded, new Date(r.at).toISOString()])).toEqual([
      ["prune-b@example.test", true, hoursAgo(29 * 24).toISOString()],
      ["prune-a@example.test", false, hoursAgo(23).toISOString()],
    ]);
  });
});
