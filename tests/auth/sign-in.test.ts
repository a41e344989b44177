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

  it("names the field of invalid input", async () => {
    const { signInAction } = await import("../../app/(auth)/sign-in/actions");
    const result = await signInAction(null, form("not-an-email", ""));
    expect(result).toMatchObject({ ok: false, code: "INVALID_INPUT" });
    expect(result.ok ? "" : result.message).toMatch(/email: .*password: /);
  });
});
