import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isSepaText, sepaLosesLetters, sepaText } from "./sepa-text";

describe("sepaText", () => {
  it("writes names in the SEPA character set, spelling out what it can", () => {
    expect(sepaText("Zoë Müller & Søn", 70)).toBe("Zoe Muller + Son");
    expect(sepaText("Acme Ltd", 70)).toBe("Acme Ltd");
    expect(sepaText("a//b", 70)).toBe("a/b");
    // Latin letters and marks without a decomposition: spelled, never dropped as another alphabet's.
    const spelled = ["GROẞMANN", "Oʼ Brien", "Hawaiʻi", "Ilʹich", "Mª José", "Nº 5 SL", "Ĳsselmeer", "ĳs"];
    expect(spelled.map((name) => sepaText(name, 70))).toEqual([
      "GROSSMANN",
      "O' Brien",
      "Hawai'i",
      "Il'ich",
      "Ma Jose",
      "No 5 SL",
      "IJsselmeer",
      "ijs",
    ]);
    expect(spelled.filter(sepaLosesLetters)).toEqual([]);
    expect(["Иван Петров", "Ivan Петров", "李雷"].map(sepaLosesLetters)).toEqual([true, true, true]);
  });

  it("never starts or ends a text with a slash, whatever stood around it", () => {
    expect(sepaText("/ /Acme Ltd", 70)).toBe("Acme Ltd");
    expect(sepaText("Acme / ", 70)).toBe("Acme");
    expect(sepaText("Acme Ltd /x", 10)).toBe("Acme Ltd");
  });

  it("gives SEPA text within the length for any input", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 90 }), fc.integer({ min: 1, max: 70 }), (value, max) => {
        const out = sepaText(value, max);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(isSepaText(out), JSON.stringify(out)).toBe(true);
        expect(out).toBe(out.trim());
      }),
      { numRuns: 2000 },
    );
  });
});
