import Link from "next/link";
import { formatCount } from "@/lib/format";
import { buttonClassName } from "@/app/_components/ui/button-styles";

/** Where a link goes: by the offset of its first row (a list the service pages), or by its page number (from 1). */
type PagerTarget = { hrefFor: (offset: number) => string } | { pageHref: (page: number) => string };

/**
 * Previous / next links for a list shown a page at a time (limit and offset). Links, so they work without script, open
 * in a new tab and keep their place in the history.
 */
export function Pager({
  label,
  offset,
  limit,
  total,
  ...links
}: {
  label: string;
  offset: number;
  limit: number;
  total: number;
} & PagerTarget) {
  const hrefFor = (at: number) => ("hrefFor" in links ? links.hrefFor(at) : links.pageHref(Math.floor(at / limit) + 1));
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(total / limit));
  // Past the last page (a link kept while the list shrank, or typed): back to the last page, not a page before it.
  const pastEnd = total > 0 && offset >= total;
  const previous = offset > 0 ? hrefFor(pastEnd ? (pages - 1) * limit : Math.max(0, offset - limit)) : null;
  const next = offset + limit < total ? hrefFor(offset + limit) : null;
  return (
    <PagerLinks
      label={label}
      summary={
        total === 0
          ? "No rows"
          : pastEnd
            ? `No rows on page ${page}: the list has ${formatCount(total)} rows on ${plural(pages, "page")}`
            : `Rows ${formatCount(first)}–${formatCount(last)} of ${formatCount(total)} · page ${page} of ${pages}`
      }
      previous={previous}
      next={next}
    />
  );
}

/**
 * The links themselves, for a list that knows only whether there is more before or after what it shows (a list
 * paged by its last key, too long to count on every view); a missing link shows as a disabled one.
 */
export function PagerLinks(props: { label: string; summary: string; previous: string | null; next: string | null }) {
  return (
    <nav
      aria-label={props.label}
      className="flex flex-wrap items-center justify-between gap-3 px-3 py-2 text-sm text-ink-muted"
    >
      <p>{props.summary}</p>
      <div className="flex gap-1">
        {props.previous !== null ? (
          <Link className={buttonClassName({ size: "sm" })} href={props.previous} scroll={false}>
            ‹ Previous
          </Link>
        ) : (
          <span className={buttonClassName({ size: "sm" })} aria-disabled="true">
            ‹ Previous
          </span>
        )}
        {props.next !== null ? (
          <Link className={buttonClassName({ size: "sm" })} href={props.next} scroll={false}>
            Next ›
          </Link>
        ) : (
          <span className={buttonClassName({ size: "sm" })} aria-disabled="true">
            Next ›
          </span>
        )}
      </div>
    </nav>
  );
}

function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? "" : "s"}`;
}
