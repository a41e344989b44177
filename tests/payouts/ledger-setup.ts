import { expect } from "vitest";
import type { Db } from "@/db";
import { checkLedgerInvariant } from "@/lib/payouts/invariant";
import { GAME } from "./fixtures";

/**
 * The recipient ledger over several months, with the minimum payout at 10.00:
 *
 * | recipient | Jan           | Feb                          | Mar                  | Apr              |
 * |-----------|---------------|------------------------------|----------------------|------------------|
 * | A 1001    | +50 paid 50   | +10 −40 (Jan refunds) → −30  | +20 → −10 carried    | +60 → pays 50    |
 * | B 1002    | +8 rolls over | +5 (+8 in) → pays 13         | —                    | —                |
 * | C 1003    | +30 paid 30   | −30 (Jan refunds) → −30      | +45 → pays 15        | —                |
 * | D 1004    | —             | —                            | +100 held, then paid | —                |
 */

export async function expectInvariant(db: Db): Promise<void> {
  const report = await checkLedgerInvariant(db, { gameId: GAME });
  expect(report.violations).toEqual([]);
  expect(report.ok).toBe(true);
  expect(report.recipients).toBeGreaterThan(0);
}
