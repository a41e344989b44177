import type { ReactNode } from "react";
import { HeadCells } from "../table/columns";
import { RowTh, SimpleTable, Td, Tr } from "../table/table";

/** A column of an import's lines table: its heading and what it shows of a line. */
export type ImportColumn<Line> = { heading: string; cell: (line: Line) => ReactNode; className?: string };

type ImportLinesTableProps<Line> = {
  /** The table's name, read by screen readers ("Refused rows"). */
  caption: string;
  lines: readonly Line[];
  /** A key unique among the lines (`index`: the line's place in `lines`, for lines a file may repeat). */
  lineKey: (line: Line, index: number) => string;
  /** The first column names its row (a row header); the others are plain cells. */
  columns: readonly [ImportColumn<Line>, ...ImportColumn<Line>[]];
  /** Said above the table, e.g. that it shows only some of the lines. */
  note?: string;
};

/**
 * The lines of an import's answer (what a dry run would do, what applying did, the rows refused) as a dense table with
 * a caption and column headings, one row per line; nothing when there are no lines.
 */
export function ImportLinesTable<Line>({ caption, lines, lineKey, columns, note }: ImportLinesTableProps<Line>) {
  if (lines.length === 0) return null;
  const [first, ...rest] = columns;
  const table = (
    <SimpleTable caption={caption} dense head={<HeadCells columns={columns.map((c) => c.heading)} />}>
      {lines.map((line, index) => (
        <Tr key={lineKey(line, index)}>
          <RowTh className={first.className}>{first.cell(line)}</RowTh>
          {rest.map((column) => (
            <Td key={column.heading} className={column.className}>
              {column.cell(line)}
            </Td>
          ))}
        </Tr>
      ))}
    </SimpleTable>
  );
  if (!note) return table;
  return (
    <div className="flex flex-col gap-2">
      <p className="text-sm text-ink-muted">{note}</p>
      {table}
    </div>
  );
}
