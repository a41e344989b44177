import { PAYOUT_TABLE_FILTERS, PAYOUT_TABLE_SORTS, STATEMENT_STATES } from "@/db/queries/payouts";
import { defineTableState } from "@/lib/table-state";

/** The recipient payout table's state in the URL: sort, direction, page, page size, search `q`, `show` and `state`. */
export const payoutTable = defineTableState({
  sortColumns: PAYOUT_TABLE_SORTS,
  defaultSort: "net",
  defaultDir: "desc",
  pageSizes: [25, 50, 100, 200],
  defaultPageSize: 50,
  filters: { show: PAYOUT_TABLE_FILTERS, state: STATEMENT_STATES },
});

/** Figures a batch gives (carried in, payable, state): before one is prepared, no sort by them is offered. */
const BATCH_SORTS: readonly string[] = ["carried_in", "payable", "state"];

/** The columns the table offers to sort by, with or without a batch. */
export function sortColumnsOf(hasBatch: boolean): readonly string[] {
  return hasBatch
    ? payoutTable.config.sortColumns
    : payoutTable.config.sortColumns.filter((c) => !BATCH_SORTS.includes(c));
}

/** The table's state as it can be applied: a sort by a batch's figure asked before there is a batch is net's. */
export function appliedTableState(
  state: ReturnType<typeof payoutTable.parse>,
  hasBatch: boolean,
): ReturnType<typeof payoutTable.parse> {
  return hasBatch || !BATCH_SORTS.includes(state.sort) ? state : { ...state, sort: "net", dir: "desc" };
}
