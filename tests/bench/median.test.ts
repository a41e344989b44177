import { describe, expect, it } from "vitest";
import { median } from "@/bench/median";

describe("the benches' median", () => {
  it("is the middle of an odd number of runs and the mean of the two middle ones of an even number", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([1.36, 1.05])).toBe(1.205);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });
});
