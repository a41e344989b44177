import { describe, expect, it } from "vitest";
import { describeFieldErrors, fieldLabel } from "@/lib/actions";

describe("a refused form's summary", () => {
  it("names each field in words, as its form labels it", () => {
    expect(fieldLabel("eurRate")).toBe("EUR rate");
    expect(fieldLabel("executionDate")).toBe("Execution date");
    expect(fieldLabel("batchId")).toBe("Batch ID");
    expect(fieldLabel("player_email")).toBe("Player email");
    expect(fieldLabel("lines.0.amountUsd")).toBe("Amount USD");
    expect(
      describeFieldErrors({
        eurRate: "must be a rate such as 0.92345678",
        reason: "Say why (at least 5 characters).",
        end: "end must be after start",
        form: "is missing; reload the page and try again",
      }),
    ).toBe(
      "EUR rate must be a rate such as 0.92345678; Reason: Say why (at least 5 characters).; " +
        "end must be after start; Form is missing; reload the page and try again",
    );
  });
});
