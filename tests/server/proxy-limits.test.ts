import { createHmac, randomBytes } from "node:crypto";
import { unstable_doesMiddlewareMatch as proxySees } from "next/experimental/testing/server";
import { describe, expect, it } from "vitest";
import { authCookieSecret, isSignedSessionCookie } from "@/lib/auth/session-cookie";
import { windowHref } from "@/lib/payouts/window-key";
import { definePublicRoute } from "@/lib/routes";
import { config, oversizedAction, SMALL_FORM_BYTES, transportSecurity } from "@/proxy";

/** Which forms posted to a page may be large: only the two pages that upload a file. */

const action = (length: number) => new Headers({ "next-action": "abc123", "content-length": String(length) });
const TOO_LARGE = { status: 413, message: "This form is larger than 1 MB." };
/** A browser holding a session cookie this deployment signed. */
const SIGNED_IN = true;

describe("form body limits", () => {
  it("refuses a form over 1 MB to any page but the file uploads, before it is parsed", () => {
    const big = SMALL_FORM_BYTES + 1;
    expect(oversizedAction("POST", "/sign-in", action(big), SIGNED_IN)).toEqual(TOO_LARGE);
    expect(oversizedAction("POST", "/settings/users", action(big), SIGNED_IN)).toEqual(TOO_LARGE);
    expect(oversizedAction("POST", "/payouts/2026-10/recipients/7", action(big), SIGNED_IN)).toEqual(TOO_LARGE);
    // The other pages under /payouts take no file.
    expect(oversizedAction("POST", "/payouts/payee-totals", action(big), SIGNED_IN)).toEqual(TOO_LARGE);
    expect(oversizedAction("POST", "/payouts/liability", action(big), SIGNED_IN)).toEqual(TOO_LARGE);
    expect(oversizedAction("POST", "/payouts", action(big), SIGNED_IN)).toEqual(TOO_LARGE);
    expect(oversizedAction("POST", "/sign-in", action(SMALL_FORM_BYTES), SIGNED_IN)).toBeNull();
  });

  it("refuses a form without its length, and a large plain form post without an action id", () => {
    expect(oversizedAction("POST", "/sign-in", new Headers({ "next-action": "abc123" }), SIGNED_IN)).toEqual({
      status: 411,
      message: "A form must say its length.",
    });
    const multipart = new Headers({
      "content-type": "multipart/form-data; boundary=x",
      "content-length": String(20_000_000),
    });
    expect(oversizedAction("POST", "/sign-in", multipart, SIGNED_IN)).toEqual(TOO_LARGE);
  });

  it("lets the results and profiles uploads, route handlers and other requests through", () => {
    const big = 20_000_000;
    expect(oversizedAction("POST", "/payouts/2026-10", action(big), SIGNED_IN)).toBeNull();
    // A window that is not a calendar month, by the link the pages make to it.
    const custom = windowHref({ startMs: Date.UTC(2026, 9, 1, 12), endMs: Date.UTC(2026, 9, 15) });
    expect(custom).toBe("/payouts/2026-10-01T12%3A00%3A00Z~2026-10-15T00%3A00%3A00Z");
    expect(oversizedAction("POST", custom, action(big), SIGNED_IN)).toBeNull();
    expect(oversizedAction("POST", "/payouts/profiles", action(big), SIGNED_IN)).toBeNull();
    // A route handler reads its own body with its own limit (the webhook receiver's is 1 MB, answered as JSON).
    const json = new Headers({ "content-type": "application/json", "content-length": String(big) });
    expect(oversizedAction("POST", "/api/webhooks/demo-game", json, SIGNED_IN)).toBeNull();
    expect(oversizedAction("GET", "/sign-in", action(big), SIGNED_IN)).toBeNull();
  });

  it("refuses the uploads' large forms too without a session cookie this deployment signed", () => {
    const big = 20_000_000;
    expect(oversizedAction("POST", "/payouts/2026-10", action(big), false)).toEqual(TOO_LARGE);
    expect(oversizedAction("POST", "/payouts/profiles", action(big), false)).toEqual(TOO_LARGE);
    expect(oversizedAction("POST", "/payouts/profiles", action(SMALL_FORM_BYTES), false)).toBeNull();
  });
});

describe("the session cookie's signature, as the proxy reads it", () => {
  const key = randomBytes(32).toString("base64");
  const previous = randomBytes(32).toString("base64");
  const secrets = [authCookieSecret(key), authCookieSecret(previous)];
  /** As better-auth writes it (tests/auth/sign-in.test.ts reads a real one): token, ".", base64 HMAC, URL-encoded. */
  const signedWith = (token: string, secret: string) =>
    encodeURIComponent(`${token}.${createHmac("sha256", secret).update(token).digest("base64")}`);

  it("accepts a cookie signed with the key or the previous one, and nothing else", () => {
    const token = "x5Jk2vQ0n7TqWmZ3aB9cD1eF4gH6iJ8k";
    const signed = signedWith(token, authCookieSecret(key));
    expect(isSignedSessionCookie(signed, secrets)).toBe(true);
    expect(isSignedSessionCookie(signedWith(token, authCookieSecret(previous)), secrets)).toBe(true);
    const other = authCookieSecret(randomBytes(32).toString("base64"));
    expect(isSignedSessionCookie(signedWith(token, other), secrets)).toBe(false);
    // A cookie merely named so, a token changed under its signature, a signature cut short, a broken encoding.
    for (const forged of ["x", "ended.session", `y${signed}`, signed.slice(0, -6), "%E0%A4%A.x", ""])
      expect(isSignedSessionCookie(forged, secrets), forged).toBe(false);
  });
});

describe("route handlers", () => {
  it("are not handed to the proxy, which Next.js would first read a whole body for (up to 21 MB)", () => {
    expect(proxySees({ config, url: "/api/webhooks/service/demo-game" })).toBe(false);
    expect(proxySees({ config, url: "/api/exports/journal" })).toBe(false);
    expect(proxySees({ config, url: "/sign-in" })).toBe(true);
    expect(proxySees({ config, url: "/payouts/2026-10" })).toBe(true);
    expect(proxySees({ config, url: "/apiary" })).toBe(true);
  });

  it("answer uncached unless they say otherwise, as the proxy marks pages", async () => {
    const context = { params: Promise.resolve({}) };
    const plain = definePublicRoute("a test", async () => Response.json({ ok: true }));
    expect((await plain(new Request("http://desk.test/api/x"), context)).headers.get("cache-control")).toBe(
      "private, no-store, max-age=0",
    );
    const redirect = definePublicRoute("a test", async () => Response.redirect("http://desk.test/elsewhere", 303));
    const moved = await redirect(new Request("http://desk.test/api/x"), context);
    expect([moved.status, moved.headers.get("location"), moved.headers.get("cache-control")]).toEqual([
      303,
      "http://desk.test/elsewhere",
      "private, no-store, max-age=0",
    ]);
    const kept = definePublicRoute(
      "a test",
      async () => new Response("x", { headers: { "Cache-Control": "no-cache" } }),
    );
    expect((await kept(new Request("http://desk.test/api/x"), context)).headers.get("cache-control")).toBe("no-cache");
  });
});

describe("a desk reached over https", () => {
  it("has browsers come back over https only; over http or unset, says nothing of it", () => {
    expect(transportSecurity("https://desk.example.com")).toBe("max-age=31536000");
    expect(transportSecurity("HTTPS://desk.example.com/")).toBe("max-age=31536000");
    expect(transportSecurity("http://localhost:3000")).toBeNull();
    expect(transportSecurity(undefined)).toBeNull();
  });
});
