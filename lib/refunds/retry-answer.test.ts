import { describe, expect, it } from "vitest";
import { retryAnsweredWell } from "./retry-answer";

describe("retryAnsweredWell", () => {
  it("is a success only for a refund that went through or was settled", () => {
    const answer = (state: string) => ({ ok: true, data: { attemptId: "a", state } });
    expect(retryAnsweredWell(answer("succeeded"))).toBe(true);
    expect(retryAnsweredWell(answer("resolved"))).toBe(true);
    for (const state of ["pending", "needs_attention", "in_progress", "failed"])
      expect(retryAnsweredWell(answer(state))).toBe(false);
    expect(retryAnsweredWell({ ok: false })).toBe(false);
    expect(retryAnsweredWell({ ok: true })).toBe(false);
    expect(retryAnsweredWell(null)).toBe(false);
  });
});
