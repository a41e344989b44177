import type { ReactNode } from "react";

/**
 * A secondary section of the window page that folds away (a native <details>: keyboard and screen readers know it),
 * its heading and a one-line summary always visible.
 */
export function Panel({
  id,
  title,
  summary,
  open = false,
  className,
  children,
}: {
  id: string;
  title: string;
  summary?: ReactNode;
  open?: boolean;
  className?: string;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={`${id}-heading`} className={className}>
      <details open={open} className="group rounded-lg border border-line bg-surface">
        <summary
          className={
            "flex cursor-pointer list-none flex-wrap items-baseline gap-x-3 gap-y-0.5 px-4 py-3 " +
            "[&::-webkit-details-marker]:hidden"
          }
        >
          <span aria-hidden="true" className="text-xs text-ink-muted transition-transform group-open:rotate-90">
            ▶
          </span>
          <h2 id={`${id}-heading`} className="text-sm font-semibold text-ink">
            {title}
          </h2>
          {summary ? <span className="text-xs text-ink-muted">{summary}</span> : null}
        </summary>
        <div className="border-t border-line p-4">{children}</div>
      </details>
    </section>
  );
}
