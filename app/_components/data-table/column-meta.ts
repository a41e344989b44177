import type { RowData } from "@tanstack/react-table";

// TanStack Table is extended by declaration merging, which only works on an interface.
declare module "@tanstack/react-table" {
  interface ColumnMeta<TData extends RowData, TValue> {
    /** "right" for amounts and counts: header and cells line up on the decimal side. */
    align?: "left" | "right" | "center";
    /** Plain-text column name for announcements ("sorted by Gross") when `header` is not a string. */
    label?: string;
    /** Render this column's cells as <th scope="row">: the cell that names the row (the recipient). */
    rowHeader?: boolean;
    headerClassName?: string;
    cellClassName?: string;
  }
}
