import { describe, expect, it } from "vitest";
import { jobFailure } from "@/lib/jobs/worker";

/** A failed job's error as pg-boss stores it (every field of it, in pgboss.job.output): its message alone. */
describe("a failed job's error", () => {
  it("keeps its message and none of the fields its cause put on it (an SMTP_URL with its password)", () => {
    const cause = Object.assign(new TypeError("Invalid URL"), {
      code: "ERR_INVALID_URL",
      input: "smtp://AKIAEXAMPLE:BPk1aB3/SECRET@email-smtp.example:587",
    });
    const kept = jobFailure(cause);
    expect(kept.message).toBe("Invalid URL");
    expect(Object.keys(kept)).toEqual([]);
    expect(JSON.stringify({ ...kept, message: kept.message })).not.toContain("SECRET");
    expect(jobFailure("refused").message).toBe("refused");
  });
});
