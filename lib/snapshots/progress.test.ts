import { describe, expect, it } from "vitest";
import { formatProgress, summarizePullProgress } from "./progress";

const pull = (over: Partial<Parameters<typeof summarizePullProgress>[0]> = {}) => ({
  status: "running" as const,
  pagesFetched: 4,
  pagesEstimated: 6,
  recipientsFetched: 300,
  recipientsTotal: 2_000,
  ...over,
});

describe("the one reading of a pull's progress", () => {
  it("gives pages done of the estimate, the share read and the recipients", () => {
    expect(summarizePullProgress(pull())).toEqual({
      active: true,
      pagesDone: 4,
      pagesTotal: 6,
      percent: 66,
      pages: "4 / 6",
      recipients: "300 / 2,000",
    });
  });

  it("never shows fewer pages in all than already read, nor a total of none", () => {
    expect(summarizePullProgress(pull({ pagesFetched: 9, pagesEstimated: 6 })).pages).toBe("9 / 9");
    expect(summarizePullProgress(pull({ pagesFetched: 0, pagesEstimated: null, recipientsTotal: null }))).toMatchObject(
      {
        pages: "0 / 1",
        percent: 0,
        recipients: "300",
      },
    );
    expect(summarizePullProgress(pull({ pagesFetched: 0, pagesEstimated: 0 })).pages).toBe("0 / 1");
  });

  it("reaches 100% only once published", () => {
    expect(summarizePullProgress(pull({ pagesFetched: 6, pagesEstimated: 6 })).percent).toBe(99);
    expect(summarizePullProgress(pull({ status: "complete", pagesFetched: 6, pagesEstimated: 6 }))).toMatchObject({
      percent: 100,
      active: false,
    });
    expect(summarizePullProgress(pull({ status: "retrying" })).active).toBe(true);
    expect(summarizePullProgress(pull({ status: "failed" })).active).toBe(false);
  });

  it("is what the command line prints", () => {
    const line = formatProgress({
      ...pull(),
      phase: "reading recipients",
      linesFetched: 3_012,
      rateLimited: 1,
      retries: 7,
      etaMs: 4_000,
    });
    expect(line).toBe(
      "pages 4/6 · recipients 300/2,000 · lines 3,012 · 429s 1 · retries 7 · ETA 4s · reading recipients",
    );
  });
});
