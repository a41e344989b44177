"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { buttonClassName } from "@/app/_components/ui/button-styles";

/**
 * The links themselves, for a list that knows only whether there is more before or after what it shows (a list
 * paged by its last key, too long to count on every view). A missing link stays a link, marked disabled and not
 * followed: pressing Next onto the last page keeps focus on it rather than dropping it to the document's start.
 */
export function PagerLinks(props: { label: string; summary: string; previous: string | null; next: string | null }) {
  return (
    <nav
      aria-label={props.label}
      className="flex flex-wrap items-center justify-between gap-3 px-3 py-2 text-sm text-ink-muted"
    >
      <p>{props.summary}</p>
      <div className="flex gap-1">
        <PagerLink href={props.previous}>‹ Previous</PagerLink>
        <PagerLink href={props.next}>Next ›</PagerLink>
      </div>
    </nav>
  );
}

function PagerLink({ href, children }: { href: string | null; children: string }) {
  const pathname = usePathname();
  const query = useSearchParams().toString();
  // Disabled: the link stays in place (and keeps focus) and leads to the page it is on, which a press does not
  // follow (one before the page's script runs, or in a new tab, shows this same page).
  const here = query ? `${pathname}?${query}` : pathname;
  return (
    <Link
      className={buttonClassName({ size: "sm" })}
      href={href ?? here}
      prefetch={href === null ? false : undefined}
      aria-disabled={href === null ? true : undefined}
      onClick={href === null ? (event) => event.preventDefault() : undefined}
      scroll={false}
    >
      {children}
    </Link>
  );
}
