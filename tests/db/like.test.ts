import { describe, expect, it } from "vitest";
import { escapeLike, foldedPrefixes } from "@/db/queries/like";

describe("foldedPrefixes", () => {
  it("is the escaped prefix alone for ASCII text", () => {
    expect(foldedPrefixes("ann_a%")).toEqual(["ann\\_a\\%%"]);
    expect(escapeLike("a\\b")).toBe("a\\\\b");
  });

  it("tries the letters outside ASCII as capitals where names hold them", () => {
    expect(foldedPrefixes("émi")).toEqual(["émi%", "Émi%"]);
    expect(foldedPrefixes("çağlar y")).toEqual(["çağlar y%", "Çağlar y%", "ÇaĞlar y%"]);
    expect(foldedPrefixes("мария и")).toEqual(["мария и%", "Мария и%", "Мария И%", "МАРИЯ И%"]);
  });

  it("tries a letter whose capital is in A–Z as lower() folds that capital", () => {
    // "KIZILTAŞ" is compared as "kiziltaŞ", "Kızıltaş" as typed.
    expect(foldedPrefixes("kızıltaş")).toEqual(["kızıltaş%", "kiziltaŞ%"]);
  });

  it("leaves letters without a one-letter capital as typed", () => {
    expect(foldedPrefixes("straße")).toEqual(["straße%"]);
    expect(foldedPrefixes("李明")).toEqual(["李明%"]);
  });
});
