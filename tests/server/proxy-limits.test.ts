import { describe, expect, it } from "vitest";
import { oversizedAction, SMALL_FORM_BYTES } from "@/proxy";

/** Which server actions may send a large form: only the two pages that upload a file. */

const action = (length: number) => new Headers({ "next-action": "abc123", "content-length": String(length) });

describe("server action body limits", () => {
  it("refuses a form over 1 MB to any action but the file uploads, before it is read", () => {
    const big = SMALL_FORM_BYTES + 1;
    expect(oversizedAction("POST", "/sign-in", action(big))).toBe("This form is larger than 1 MB.");
    expect(oversizedAction("POST", "/settings/users", action(big))).toBe("This form is larger than 1 MB.");
    expect(oversizedAction("POST", "/payouts/2026-10/recipients/7", action(big))).not.toBeNull();
    expect(oversizedAction("POST", "/sign-in", action(SMALL_FORM_BYTES))).toBeNull();
  });

  it("lets the results and profiles uploads, route handlers and other requests through", () => {
    const big = 20_000_000;
    expect(oversizedAction("POST", "/payouts/2026-10", action(big))).toBeNull();
    expect(oversizedAction("POST", "/payouts/2026-10-01~2026-10-16", action(big))).toBeNull();
    expect(oversizedAction("POST", "/payouts/profiles", action(big))).toBeNull();
    // A route handler reads its own body with its own limit (the webhook receiver's is 1 MB, answered as JSON).
    expect(
      oversizedAction("POST", "/api/webhooks/demo-game", new Headers({ "content-length": String(big) })),
    ).toBeNull();
    expect(oversizedAction("GET", "/sign-in", action(big))).toBeNull();
  });
});
