import Link from "next/link";
import { formatCount } from "@/lib/format";
import { buttonClassName } from "@/app/_components/ui/button-styles";

/** Where a link goes: by the offset of its first row (a list the service pages), or by its page number (from 1). */
type PagerLinks = { hrefFor: (offset: number) => string } | { pageHref: (page: number) => string };

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
} & PagerLinks) {
  const hrefFor = (at: number) => ("hrefFor" in links ? links.hrefFor(at) : links.pageHref(Math.floor(at / limit) + 1));
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(total / limit));
  const previous = offset > 0 ? hrefFor(Math.max(0, offset - limit)) : null;
  const next = offset + limit < total ? hrefFor(offset + limit) : null;
  return (
    <nav
      aria-label={label}
      className="flex flex-wrap items-center justify-between gap-3 px-3 py-2 text-sm text-ink-muted"
    >
      <p>
        {total === 0
          ? "No rows"
          : `Rows ${formatCount(first)}–${formatCount(last)} of ${formatCount(total)} · page ${page} of ${pages}`}
      </p>
      <div className="flex gap-1">
        {previous !== null ? (
          <Link className={buttonClassName({ size: "sm" })} href={previous} scroll={false}>
            ‹ Previous
          </Link>
        ) : (
          <span className={buttonClassName({ size: "sm" })} aria-disabled="true">
            ‹ Previous
          </span>
        )}
        {next !== null ? (
          <Link className={buttonClassName({ size: "sm" })} href={next} scroll={false}>
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
