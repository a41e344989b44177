import type { ReactNode } from "react";
import { cn } from "../cn";

export type CardProps = {
  /** Heading text; rendered as an h2 (use `headingLevel` inside a deeper section). */
  title?: ReactNode;
  headingLevel?: 2 | 3;
  description?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
  /** Drop the body padding, e.g. for a table that runs edge to edge. */
  flush?: boolean;
  className?: string;
};

/** A bordered section of a page. */
export function Card({ title, headingLevel = 2, description, actions, children, flush = false, className }: CardProps) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  const hasHeader = title || description || actions;
  return (
    <section className={cn("rounded-lg border border-line bg-surface", className)}>
      {hasHeader ? (
        <header className="flex flex-wrap items-start justify-between gap-2 border-b border-line px-4 py-3">
          <div className="min-w-0">
            {title ? <Heading className="text-sm font-semibold text-ink">{title}</Heading> : null}
            {description ? <p className="mt-0.5 text-ink-muted">{description}</p> : null}
          </div>
          {actions ? <div className="flex shrink-0 items-center gap-2">{actions}</div> : null}
        </header>
      ) : null}
      <div className={flush ? undefined : "p-4"}>{children}</div>
    </section>
  );
}
