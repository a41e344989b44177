import type { ReactNode } from "react";
import { cn } from "@/app/_components/cn";

/** A plain server-rendered table in the house look, for lists the service pages for us. */
export function SimpleTable({ caption, head, children, footer }: { caption: string; head: ReactNode; children: ReactNode; footer?: ReactNode }) {
  return (
    <div className="rounded-lg border border-line bg-surface">
      {/* Focusable, so a keyboard can scroll a table wider than the screen; named after its table. */}
      <div className="overflow-x-auto focus-visible:outline-2 focus-visible:outline-accent" tabIndex={0} role="region" aria-label={caption}>
        <table className="w-full border-collapse text-sm">
          <caption className="sr-only">{caption}</caption>
          <thead className="bg-subtle">
            <tr>{head}</tr>
          </thead>
          <tbody>{children}</tbody>
        </table>
      </div>
      {footer ? <div className="border-t border-line">{footer}</div> : null}
    </div>
  );
}

export function Th({ children, align = "left", className }: { children?: ReactNode; align?: "left" | "right"; className?: string }) {
  return (
    <th
      scope="col"
      className={cn(
        "border-b border-line px-3 py-2 text-xs font-semibold whitespace-nowrap text-ink-muted",
        align === "right" ? "text-right" : "text-left",
        className,
      )}
    >
      {children}
    </th>
  );
}

export function Td({ children, align = "left", className }: { children?: ReactNode; align?: "left" | "right"; className?: string }) {
  return <td className={cn("px-3 py-2 align-top", align === "right" ? "text-right" : undefined, className)}>{children}</td>;
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
