import { describe, expect, it } from "vitest";
import { monthWindow, parseWindow } from "@/lib/time";
import { parseWindowKey, windowKey, windowLabel } from "./window-key";

describe("window keys", () => {
  it("names a calendar month by its month and any other window by its bounds, and reads both back", () => {
    const march = monthWindow("2026-03");
    expect(windowKey(march)).toBe("2026-03");
    expect(parseWindowKey("2026-03")).toEqual(march);
    const custom = parseWindow("2026-03-01", "2026-03-15T12:00:00Z");
    expect(windowKey(custom)).toBe("2026-03-01T00:00:00Z~2026-03-15T12:00:00Z");
    expect(parseWindowKey(encodeURIComponent(windowKey(custom)))).toEqual(custom);
    expect(windowLabel(march)).toBe("March 2026");
    expect(windowLabel(parseWindow("2026-02-05T00:00:00Z", "2026-02-20T00:00:00Z"))).toBe("2026-02-05 to 2026-02-19");
    expect(windowLabel(custom)).toBe("2026-03-01 00:00 → 2026-03-15 12:00 UTC");
  });

  it("refuses keys that are not a window the service accepts", () => {
    expect(parseWindowKey("2026-13")).toBeNull();
    expect(parseWindowKey("2026-03-15~2026-03-01")).toBeNull();
    expect(parseWindowKey("2025-01-01~2026-06-01")).toBeNull();
    expect(parseWindowKey("nonsense")).toBeNull();
    // Not percent-encoding: no window (the page says not found), never an exception.
    expect(parseWindowKey("100%")).toBeNull();
    expect(parseWindowKey("2026-03%E0%A4%A")).toBeNull();
  });
});
