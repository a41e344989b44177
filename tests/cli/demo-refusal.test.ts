import { describe, expect, it } from "vitest";
import { refuseDemoForPublicAddress } from "../../bin/runtime";

/** Without DATABASE_URL the desk runs its embedded demo, on this machine only. */
describe("the embedded demo", () => {
  it("is refused for a public address, a sign that DATABASE_URL went missing from a deployment", () => {
    expect(() => refuseDemoForPublicAddress("https://payouts.studio.example")).toThrow(
      /^DATABASE_URL is not set, but PAYOUT_DESK_URL is https:\/\/payouts\.studio\.example: refusing/,
    );
    for (const local of [undefined, "http://localhost:3000", "http://127.0.0.1:4000", "http://[::1]:3000"])
      expect(() => refuseDemoForPublicAddress(local)).not.toThrow();
    expect(() => refuseDemoForPublicAddress("http://desk.localhost:3000")).not.toThrow();
  });
});
