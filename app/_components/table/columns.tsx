import type { ColumnDef } from "@tanstack/react-table";
import { Absent } from "@/app/_components/ui/absent";
import { Money } from "@/app/_components/ui/money";
import { Td, Th } from "./table";

/**
 * Column helpers shared by the tables that list amounts: a heading row from a list, a money cell, and a sortable
 * money column for the data tables. One place for what each of those looks like, rather than a copy per table.
 */

/** A heading: its text, or [text, "right"] for an amount or count column. Headings of one table differ. */
export type HeadingSpec = string | readonly [string, "right"];

/** The <th> cells of a SimpleTable head, from a list of headings. */
export function HeadCells({ columns }: { columns: readonly HeadingSpec[] }) {
  return (
    <>
      {columns.map((column) => {
        const [label, align] = typeof column === "string" ? [column, "left" as const] : column;
        return (
          <Th key={label} align={align}>
            {label}
          </Th>
        );
      })}
    </>
  );
}

/** A right-aligned amount cell; an em dash (read as "none") when there is no amount. */
export function MoneyTd({ value, className }: { value: string | null | undefined; className?: string }) {
  return (
    <Td align="right" className={className}>
      {value === null || value === undefined ? <Absent /> : <Money value={value} />}
    </Td>
  );
}

/**
 * A sortable amount column of a data table: right-aligned, largest first on the first click. `missing` names what an
 * empty value means ("not prepared"); `className` styles the figure (the column to pay, in bold).
 */
export function moneyColumn<TData>(options: {
  id: string;
  header: string;
  label?: string;
  value: (row: TData) => string | null;
  className?: string;
  missing?: string;
}): ColumnDef<TData> {
  return {
    id: options.id,
    accessorFn: options.value,
    header: options.header,
    sortDescFirst: true,
    meta: { align: "right", label: options.label ?? options.header },
    cell: ({ row }) => {
      const value = options.value(row.original);
      return value === null ? (
        <Absent label={options.missing} />
      ) : (
        <Money value={value} className={options.className} />
      );
    },
  };
}
