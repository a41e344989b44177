import { describe, expect, it } from "vitest";
import { windowHref } from "@/lib/payouts/window-key";
import { oversizedAction, SMALL_FORM_BYTES } from "@/proxy";

/** Which forms posted to a page may be large: only the two pages that upload a file. */

const action = (length: number) => new Headers({ "next-action": "abc123", "content-length": String(length) });
const TOO_LARGE = { status: 413, message: "This form is larger than 1 MB." };

describe("form body limits", () => {
  it("refuses a form over 1 MB to any page but the file uploads, before it is parsed", () => {
    const big = SMALL_FORM_BYTES + 1;
    expect(oversizedAction("POST", "/sign-in", action(big))).toEqual(TOO_LARGE);
    expect(oversizedAction("POST", "/settings/users", action(big))).toEqual(TOO_LARGE);
    expect(oversizedAction("POST", "/payouts/2026-10/recipients/7", action(big))).toEqual(TOO_LARGE);
    // The other pages under /payouts take no file.
    expect(oversizedAction("POST", "/payouts/payee-totals", action(big))).toEqual(TOO_LARGE);
    expect(oversizedAction("POST", "/payouts/liability", action(big))).toEqual(TOO_LARGE);
    expect(oversizedAction("POST", "/payouts", action(big))).toEqual(TOO_LARGE);
    expect(oversizedAction("POST", "/sign-in", action(SMALL_FORM_BYTES))).toBeNull();
  });

  it("refuses a form without its length, and a large plain form post without an action id", () => {
    expect(oversizedAction("POST", "/sign-in", new Headers({ "next-action": "abc123" }))).toEqual({
      status: 411,
      message: "A form must say its length.",
    });
    const multipart = new Headers({
      "content-type": "multipart/form-data; boundary=x",
      "content-length": String(20_000_000),
    });
    expect(oversizedAction("POST", "/sign-in", multipart)).toEqual(TOO_LARGE);
  });

  it("lets the results and profiles uploads, route handlers and other requests through", () => {
    const big = 20_000_000;
    expect(oversizedAction("POST", "/payouts/2026-10", action(big))).toBeNull();
    // A window that is not a calendar month, by the link the pages make to it.
    const custom = windowHref({ startMs: Date.UTC(2026, 9, 1, 12), endMs: Date.UTC(2026, 9, 15) });
    expect(custom).toBe("/payouts/2026-10-01T12%3A00%3A00Z~2026-10-15T00%3A00%3A00Z");
    expect(oversizedAction("POST", custom, action(big))).toBeNull();
    expect(oversizedAction("POST", "/payouts/profiles", action(big))).toBeNull();
    // A route handler reads its own body with its own limit (the webhook receiver's is 1 MB, answered as JSON).
    const json = new Headers({ "content-type": "application/json", "content-length": String(big) });
    expect(oversizedAction("POST", "/api/webhooks/demo-game", json)).toBeNull();
    expect(oversizedAction("GET", "/sign-in", action(big))).toBeNull();
  });
});
