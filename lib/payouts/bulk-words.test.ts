import { describe, expect, it } from "vitest";
import { describeBulk, skippedInWords } from "./bulk-words";

const skip = (recipientPlayerId: number, name: string | null, reason: string) => ({
  id: `s-${recipientPlayerId}`,
  recipientPlayerId,
  name,
  reason,
});

describe("a change of several statements in words", () => {
  it("names whom it left as it was, the reason following the name or after a colon", () => {
    expect(skippedInWords(skip(42, "Kim Lee", "is in a payment file"))).toBe("Kim Lee (#42) is in a payment file");
    expect(skippedInWords(skip(43, null, "has open flags (Chargeback)"))).toBe("#43 has open flags (Chargeback)");
    // A reason written as a sentence keeps its words and loses its full stop (the message ends with its own).
    expect(skippedInWords(skip(44, "Zoë", "The batch was discarded."))).toBe("Zoë (#44): The batch was discarded");
  });

  it("counts in the singular or plural and shows three of those skipped", () => {
    expect(describeBulk("Held", { changed: 1, skipped: [] })).toBe("Held 1 statement.");
    const four = [1, 2, 3, 4].map((n) => skip(n, `R${n}`, "is paid"));
    expect(describeBulk("Approved", { changed: 0, skipped: four })).toBe(
      "Approved 0 statements. Skipped 4: R1 (#1) is paid; R2 (#2) is paid; R3 (#3) is paid; and 1 more.",
    );
  });
});
