import type { ReactNode } from "react";

export type TableEmptyStateProps = {
  title: ReactNode;
  /** What to do next. */
  children?: ReactNode;
  action?: ReactNode;
};

/** The body of a table with no rows on this page; rendered inside one full-width cell. */
export function TableEmptyState({ title, children, action }: TableEmptyStateProps) {
  return (
    <div className="px-4 py-10 text-center">
      <p className="font-semibold text-ink">{title}</p>
      {children ? <div className="mx-auto mt-1 max-w-prose text-ink-muted">{children}</div> : null}
      {action ? <div className="mt-3 flex justify-center gap-2">{action}</div> : null}
    </div>
  );
}
