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
