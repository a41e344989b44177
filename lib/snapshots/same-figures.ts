import "server-only";
import { isDecimalString, sameAmount } from "@/lib/money";
import type { AttributionReport } from "@/lib/service/schemas";

/** Two pages of one window report the same figures: its count of recipients and its totals. */
export function sameFigures(a: AttributionReport, b: AttributionReport): boolean {
  return a.pagination.total_count === b.pagination.total_count && sameFigure(a.totals, b.totals);
}

/**
 * The same figures however each page writes them: keys in any order (the reasons are a record, kept in the order
 * received), an amount by its value ("12.30" and "12.3").
 */
function sameFigure(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "string" && typeof b === "string")
    return isDecimalString(a) && isDecimalString(b) && sameAmount(a, b);
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  const left = Object.entries(a);
  const right = b as Record<string, unknown>;
  return (
    left.length === Object.keys(right).length &&
    left.every(([key, v]) => Object.hasOwn(right, key) && sameFigure(v, right[key]))
  );
}
