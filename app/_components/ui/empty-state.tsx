import type { ReactNode } from "react";
import { cn } from "../cn";

export type EmptyStateProps = {
  title: ReactNode;
  /** What the person can do next ("Pull a snapshot for March to see payouts."). */
  children?: ReactNode;
  action?: ReactNode;
  className?: string;
};

/** Shown instead of content that does not exist yet. No icon: the text says what to do next. */
export function EmptyState({ title, children, action, className }: EmptyStateProps) {
  return (
    <div
      className={cn(
        "rounded-lg border border-dashed border-line-strong/50 bg-surface px-6 py-10 text-center",
        className,
      )}
    >
      <p className="text-base font-semibold text-ink">{title}</p>
      {children ? <div className="mx-auto mt-1 max-w-prose text-ink-muted">{children}</div> : null}
      {action ? <div className="mt-4 flex justify-center gap-2">{action}</div> : null}
    </div>
  );
}
