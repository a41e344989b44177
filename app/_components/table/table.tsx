import type { ReactNode } from "react";
import { cn } from "@/app/_components/cn";
import { ScrollRegion } from "@/app/_components/ui/scroll-region";

type TableProps = {
  /** Read by screen readers as the table's name; also names its scroll region. */
  caption: string;
  head: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
  /** "card" draws the house border; "none" sits inside a card or panel that already has one. */
  frame?: "card" | "none";
  /** Tighter rows, for long evidence lists. */
  dense?: boolean;
  /** Column headings stay on one line (short lists); by default they wrap so a wide table fits the page. */
  nowrapHead?: boolean;
  className?: string;
};

/** A plain server-rendered table in the house look. */
export function SimpleTable({
  caption,
  head,
  children,
  footer,
  frame = "card",
  dense = false,
  nowrapHead = false,
  className,
}: TableProps) {
  return (
    <div className={cn(frame === "card" ? "rounded-lg border border-line bg-surface" : undefined, className)}>
      {/* Focusable, so a keyboard can scroll a table wider than the screen; named after its table. */}
      <ScrollRegion label={caption} className="overflow-x-auto focus-visible:outline-2 focus-visible:outline-accent">
        <table
          className={cn(
            "w-full border-collapse text-sm",
            dense ? "[&_td]:py-1.5 [&_tbody_th]:py-1.5" : undefined,
            nowrapHead ? "[&_thead_th]:whitespace-nowrap" : undefined,
          )}
        >
          <caption className="sr-only">{caption}</caption>
          <thead className="bg-subtle">
            <tr>{head}</tr>
          </thead>
          <tbody>{children}</tbody>
        </table>
      </ScrollRegion>
      {footer ? <div className="border-t border-line">{footer}</div> : null}
    </div>
  );
}

type CellProps = { children?: ReactNode; align?: "left" | "right"; className?: string; title?: string };

export function Th({ children, align = "left", className }: CellProps) {
  return (
    <th
      scope="col"
      className={cn(
        "border-b border-line px-3 py-2 text-xs font-semibold text-ink-muted",
        align === "right" ? "text-right" : "text-left",
        className,
      )}
    >
      {children}
    </th>
  );
}

/** The cell that names its row (the first column, usually). */
export function RowTh({ children, className }: Omit<CellProps, "align">) {
  return (
    <th scope="row" className={cn("px-3 py-2 text-left align-top font-normal", className)}>
      {children}
    </th>
  );
}

export function Td({ children, align = "left", className, title, colSpan }: CellProps & { colSpan?: number }) {
  return (
    <td
      className={cn("px-3 py-2 align-top", align === "right" ? "text-right" : undefined, className)}
      title={title}
      colSpan={colSpan}
    >
      {children}
    </td>
  );
}

export function Tr({ children }: { children: ReactNode }) {
  return <tr className="border-b border-line last:border-b-0 hover:bg-subtle/70">{children}</tr>;
}

export function EmptyRow({ colSpan, children }: { colSpan: number; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={colSpan} className="px-4 py-8 text-center text-ink-muted">
        {children}
      </td>
    </tr>
  );
}
