import Link from "next/link";
import type { ReactNode } from "react";
import { cn } from "../cn";

export type Breadcrumb = { label: string; href?: string };

export type PageHeaderProps = {
  title: ReactNode;
  description?: ReactNode;
  /** Buttons or links for the page's main actions. */
  actions?: ReactNode;
  /** Trail above the title; the current page is the title, not a crumb. */
  breadcrumbs?: Breadcrumb[];
  /** Badges next to the title ("Stale", "Sandbox"). */
  meta?: ReactNode;
  className?: string;
};

/** The top of a page: breadcrumbs, the one h1, a description and actions. */
export function PageHeader({ title, description, actions, breadcrumbs, meta, className }: PageHeaderProps) {
  return (
    <header className={cn("mb-5 flex flex-col gap-2", className)}>
      {breadcrumbs && breadcrumbs.length > 0 ? (
        <nav aria-label="Breadcrumb">
          <ol className="flex flex-wrap items-center gap-1 text-xs text-ink-muted">
            {breadcrumbs.map((crumb) => (
              <li key={crumb.href ?? `label:${crumb.label}`} className="flex items-center gap-1">
                {crumb.href ? (
                  <Link href={crumb.href} className="hover:text-ink hover:underline">
                    {crumb.label}
                  </Link>
                ) : (
                  <span>{crumb.label}</span>
                )}
                <span aria-hidden="true">/</span>
              </li>
            ))}
          </ol>
        </nav>
      ) : null}
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-2">
            <h1 className="text-xl font-semibold tracking-tight text-ink">{title}</h1>
            {meta}
          </div>
          {description ? <p className="mt-1 max-w-3xl text-ink-muted">{description}</p> : null}
        </div>
        {actions ? <div className="flex shrink-0 flex-wrap items-center gap-2">{actions}</div> : null}
      </div>
    </header>
  );
}
