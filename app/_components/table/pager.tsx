import { formatCount } from "@/lib/format";
import { PagerLinks } from "./pager-links";

export { PagerLinks };

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

function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? "" : "s"}`;
}
