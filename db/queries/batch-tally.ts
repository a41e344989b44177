import "server-only";
import { sql } from "kysely";
import type { Db } from "@/db";
import type { PayoutStatementState } from "@/db/types";
import { formatUsd, money } from "@/core/money";

/**
 * A batch's statements counted per state (with their payable total, how many have something payable and how many
 * are flagged) from payout_batch_tally, which triggers keep as statements change (2026_11_25_1200).
 */

export const STATEMENT_STATES: readonly PayoutStatementState[] = [
  "draft",
  "approved",
  "held",
  "in_payment",
  "paid",
  "returned",
  "carried",
];

export type BatchCounts = {
  byState: Record<PayoutStatementState, { count: number; payableUsd: string }>;
  total: number;
  payableUsd: string;
  flagged: number;
};

/** How many statements a batch has in each state, their payable total and how many are flagged (kept by triggers). */
function batchTally(db: Db, params: { gameId: string; batchId: string }) {
  return db
    .selectFrom("payout_batch_tally as t")
    .innerJoin("payout_batch as b", "b.id", "t.batch_id")
    .where("b.game_id", "=", params.gameId)
    .where("t.batch_id", "=", params.batchId);
}

/** How many statements of a batch there are (in one state, if given), from its tally. */
export async function countTallied(
  db: Db,
  params: { gameId: string; batchId: string },
  state: PayoutStatementState | undefined,
): Promise<number> {
  let query = batchTally(db, params).select(sql<string>`coalesce(sum(t.statements), 0)::text`.as("n"));
  if (state) query = query.where("t.state", "=", state);
  return Number((await query.executeTakeFirst())?.n ?? 0);
}

/** Statement counts and payable totals of a batch, per state. */
export async function summarizeBatch(db: Db, params: { gameId: string; batchId: string }): Promise<BatchCounts> {
  const rows = await batchTally(db, params)
    .select(["t.state", "t.statements as n", sql<string>`t.payable_usd::text`.as("payable"), "t.flagged"])
    .execute();
  const byState = Object.fromEntries(
    STATEMENT_STATES.map((s) => [s, { count: 0, payableUsd: "0.00" }]),
  ) as BatchCounts["byState"];
  let total = 0;
  let payable = money("0");
  let flagged = 0;
  for (const r of rows) {
    byState[r.state] = { count: Number(r.n), payableUsd: formatUsd(r.payable) };
    total += Number(r.n);
    payable = payable.plus(r.payable);
    flagged += Number(r.flagged);
  }
  return { byState, total, payableUsd: formatUsd(payable), flagged };
}

/**
 * What the payment files panel counts, from the batch's tally: statements in payment, and approved or returned ones
 * with something to pay.
 */
export async function countPaymentStates(
  db: Db,
  params: { gameId: string; batchId: string },
): Promise<{ inPayment: number; payable: number }> {
  const row = await batchTally(db, params)
    .select([
      sql<string>`coalesce(sum(t.statements) filter (where t.state = 'in_payment'), 0)::text`.as("in_payment"),
      sql<string>`coalesce(sum(t.payable_statements) filter (where t.state in ('approved', 'returned')), 0)::text`.as(
        "payable",
      ),
    ])
    .executeTakeFirst();
  return { inPayment: Number(row?.in_payment ?? 0), payable: Number(row?.payable ?? 0) };
}
