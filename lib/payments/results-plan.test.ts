import { describe, expect, it } from "vitest";
import type { PlanLine } from "./plan-line";
import { linesToShow, SHOWN_LINES } from "./plan-line";
import { groupByFile } from "./results-plan";

describe("a results report's lines by payment file", () => {
  it("keeps each file's lines in the report's order and leaves out lines matched to no file", () => {
    const line = (n: number, fileId: string | null) => ({ lineNo: n, fileId }) as unknown as PlanLine;
    const lines = [line(1, "a"), line(2, "b"), line(3, null), line(4, "a"), line(5, "b"), line(6, "a")];
    const groups = groupByFile(lines);
    expect([...groups.keys()]).toEqual(["a", "b"]);
    expect(groups.get("a")?.map((l) => (l as unknown as { lineNo: number }).lineNo)).toEqual([1, 4, 6]);
    expect(groups.get("b")?.map((l) => (l as unknown as { lineNo: number }).lineNo)).toEqual([2, 5]);
  });
});

describe("the lines a page is sent of a large report", () => {
  it("are every line listed for a person and the first of the others, up to 500 of each, in the report's order", () => {
    const lines = Array.from({ length: 2_000 }, (_, n) => ({
      n,
      verdict: n % 3 === 0 ? ("unknown_reference" as const) : ("pay" as const),
    }));
    const shown = linesToShow(lines);
    expect(shown.filter((l) => l.verdict === "unknown_reference")).toHaveLength(SHOWN_LINES);
    expect(shown.filter((l) => l.verdict === "pay")).toHaveLength(SHOWN_LINES);
    expect(shown.map((l) => l.n)).toEqual([...shown.map((l) => l.n)].sort((a, b) => a - b));
    expect(linesToShow(lines.slice(0, 10))).toHaveLength(10);
  });
});
