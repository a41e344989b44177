import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createUser } from "../../lib/auth/users";
import { createTestDatabase, type TestDatabase, useTestEnv } from "../support/db";
import { actAnonymously, currentCookies } from "../support/next-request";

vi.mock("next/headers", () => import("../support/next-request"));
// better-auth's Next.js cookie plugin imports the module by its file name.
vi.mock("next/headers.js", () => import("../support/next-request"));

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  useTestEnv(t);
  await createUser(t.db, { email: "limited@payout-desk.test", role: "viewer", password: "the-right-password" });
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
    await expect(signInAction(null, form("limited@payout-desk.test", "the-right-password"))).rejects.toThrow("NEXT_REDIRECT");
    expect(currentCookies().some((c) => c.startsWith("payout-desk.session_token="))).toBe(true);
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
    await createUser(t.db, { email: "parallel@payout-desk.test", role: "viewer", password: "the-right-password" });
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
    // Many failures for other emails do not lock out a user whose own email has no failures.
    const { signInAction } = await import("../../app/(auth)/sign-in/actions");
    await createUser(t.db, { email: "bystander@payout-desk.test", role: "viewer", password: "the-right-password" });
    for (let i = 0; i < 35; i++) await signInAction(null, form(`nobody-${i}@payout-desk.test`, "guess-guess"));
    actAnonymously();
    await expect(signInAction(null, form("bystander@payout-desk.test", "the-right-password"))).rejects.toThrow("NEXT_REDIRECT");
  });

  it("names the field of invalid input", async () => {
    const { signInAction } = await import("../../app/(auth)/sign-in/actions");
    const result = await signInAction(null, form("not-an-email", ""));
    expect(result).toMatchObject({ ok: false, code: "INVALID_INPUT" });
    expect(result.ok ? "" : result.message).toMatch(/email: .*password: /);
  });
});
