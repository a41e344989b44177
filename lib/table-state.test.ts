import { describe, expect, it } from "vitest";
import { defineTableState, isNarrowed, pageCount, pageOffset, pageParam } from "./table-state";

const payouts = defineTableState({
  sortColumns: ["recipient", "gross", "payable"],
  defaultSort: "payable",
  defaultDir: "desc",
  filters: { state: ["draft", "approved", "held", "paid"], flagged: ["yes", "no"] },
});

describe("table state", () => {
  it("gives the defaults for an empty query", () => {
    expect(payouts.parse(new URLSearchParams())).toEqual({
      page: 1,
      pageSize: 25,
      sort: "payable",
      dir: "desc",
      q: "",
      filters: {},
    });
  });

  it("reads URLSearchParams and Next.js searchParams objects alike", () => {
    const query = "page=3&pageSize=100&sort=gross&dir=asc&q=%20alice%20&state=held";
    const fromUrl = payouts.parse(new URLSearchParams(query));
    const fromObject = payouts.parse({
      page: "3",
      pageSize: ["100", "25"],
      sort: "gross",
      dir: "asc",
      q: " alice ",
      state: "held",
    });
    expect(fromUrl).toEqual({
      page: 3,
      pageSize: 100,
      sort: "gross",
      dir: "asc",
      q: "alice",
      filters: { state: "held" },
    });
    expect(fromObject).toEqual(fromUrl);
  });

  it("clamps or falls back on anything invalid", () => {
    const state = payouts.parse({
      page: "-4",
      pageSize: "5000",
      sort: "password; drop table",
      dir: "sideways",
      q: "x".repeat(500),
      state: "stolen",
      flagged: "yes",
    });
    expect(state.page).toBe(1);
    expect(state.pageSize).toBe(25);
    expect(state.sort).toBe("payable");
    expect(state.dir).toBe("desc");
    expect(state.q).toHaveLength(200);
    expect(state.filters).toEqual({ flagged: "yes" });
    // PostgreSQL refuses NUL in text: a search typed with control characters searches without them.
    expect(payouts.parse(new URLSearchParams("q=al%00ice%0A")).q).toBe("al ice");
    expect(payouts.parse({ page: "abc" }).page).toBe(1);
    expect(payouts.parse({ page: "2.5" }).page).toBe(1);
    expect(payouts.parse({ page: "99999999999" }).page).toBe(1_000_000);
  });

  it("serialises back without defaults and round-trips", () => {
    expect(payouts.serialize(payouts.defaults).toString()).toBe("");
    const state = payouts.parse(new URLSearchParams("sort=gross&dir=desc&state=paid&q=bob&page=2&pageSize=50"));
    const text = payouts.serialize(state).toString();
    expect(text).toBe("sort=gross&dir=desc&state=paid&q=bob&pageSize=50&page=2");
    expect(payouts.parse(new URLSearchParams(text))).toEqual(state);
  });

  it("refuses a definition that cannot work", () => {
    expect(() => defineTableState({ sortColumns: ["a"], defaultSort: "b" as "a" })).toThrow(/defaultSort/);
    expect(() => defineTableState({ sortColumns: ["a"], defaultSort: "a", filters: { page: ["1"] } })).toThrow(
      /reserved/,
    );
  });

  it("computes offsets and page counts", () => {
    expect(pageOffset({ page: 3, pageSize: 50 })).toBe(100);
    expect(pageCount(0, 50)).toBe(1);
    expect(pageCount(20_000, 50)).toBe(400);
    expect(pageCount(20_001, 50)).toBe(401);
    expect(isNarrowed({ q: "", filters: {} })).toBe(false);
    expect(isNarrowed({ q: "", filters: { state: "held" } })).toBe(true);
  });
});

describe("pageParam", () => {
  it("is a whole page from 1 to the last, whatever the address bar says", () => {
    const page = (value: string | string[] | undefined) => pageParam({ page: value }, 100);
    expect([page(undefined), page("3"), page("0"), page("-3"), page("1.01"), page("two"), page("1e9")]).toEqual([
      1, 3, 1, 1, 1, 1, 100,
    ]);
    expect(page(["4", "9"])).toBe(4);
  });
});
