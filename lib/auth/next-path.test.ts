import { describe, expect, it } from "vitest";
import { AFTER_SIGN_IN, safeNextPath } from "./next-path";

describe("the page a sign-in lands on", () => {
  it("is the page of this app asked for, with its query", () => {
    expect(safeNextPath("/subscriptions/SUB_1767225600_BASIC001")).toBe("/subscriptions/SUB_1767225600_BASIC001");
    expect(safeNextPath("/payouts/2026-04?state=held&page=2")).toBe("/payouts/2026-04?state=held&page=2");
  });

  it("is Payouts for anything that could lead elsewhere or back to the sign-in", () => {
    for (const bad of [
      undefined,
      "",
      "payouts",
      "https://evil.example/payouts",
      "//evil.example",
      "/\\evil.example",
      "/.//evil.example",
      "/a/..//evil.example",
      "/%2e//evil.example",
      "/./sign-in",
      "/x/../api/exports/journal",
      "/a\nb",
      "/sign-in",
      "/sign-in?next=/payouts",
      "/api/exports/journal",
      "/%61pi/audit/export",
      "/%2Fevil.example",
      "/%73ign-in",
      "/%E0%A4%A",
      `/${"a".repeat(2000)}`,
    ])
      expect(safeNextPath(bad), String(bad)).toBe(AFTER_SIGN_IN);
  });
});
