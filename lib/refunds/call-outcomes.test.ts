import { describe, expect, it } from "vitest";
import type { RefundAttempt } from "@/db/queries/refunds";
import { ServiceError } from "@/lib/service/errors";
import { periodReadFailure, UNSENT_GIVE_UP_MS } from "./call-outcomes";

/** An attempt never sent, confirmed at `createdAt`; only what the decision reads. */
function unsent(createdAt: number): RefundAttempt {
  return { id: "a-1", calls: 0, createdAt: new Date(createdAt), periodCheckedAt: null } as RefundAttempt;
}

describe("a period that cannot be read before a refund's first call", () => {
  const confirmed = Date.parse("2026-11-26T10:00:00Z");
  const unavailable = new ServiceError({ kind: "http", status: 503, code: "SERVICE_UNAVAILABLE" });

  it("keeps the refund pending while it is younger than the give-up time", () => {
    const finish = periodReadFailure(unsent(confirmed), unavailable, confirmed + UNSENT_GIVE_UP_MS - 1);
    expect(finish).toMatchObject({ status: "pending", errorCode: "SERVICE_UNAVAILABLE" });
  });

  it("then fails it unsent, freeing the period, instead of trying every minute for ever", () => {
    const finish = periodReadFailure(unsent(confirmed), unavailable, confirmed + UNSENT_GIVE_UP_MS);
    expect(finish).toMatchObject({
      status: "failed",
      errorMessage: expect.stringMatching(/Nothing was sent to the service and the refund was not made/),
      errorDetail: { step: "period_check", gave_up_unsent: true },
    });
  });

  it("fails it at once when the service refuses the read", () => {
    const refused = new ServiceError({ kind: "http", status: 404, code: "PERIOD_NOT_FOUND" });
    expect(periodReadFailure(unsent(confirmed), refused, confirmed).status).toBe("failed");
  });
});
