import type { ReactNode } from "react";
import { Pager } from "@/app/_components/table/pager";
import { EmptyRow, SimpleTable } from "@/app/_components/table/table";
import { Banner } from "@/app/_components/ui/banner";
import type { Loaded } from "@/lib/lookup/load";
import { StatusFilter } from "./status-filter";

/**
 * A section listing one page of what the service answered (a subscription's billing periods, a player's
 * subscriptions): its heading, the service's refusal in its place, a status filter, and the table with its pager. An
 * empty page says whether it is past the last one, none has the status chosen, or there are none at all.
 */
export function ServiceList<T>(props: {
  headingId: string;
  heading: string;
  loaded: Loaded<T>;
  filter: { action: string; value: string; options: { value: string; label: string }[]; label: string };
  caption: string;
  head: ReactNode;
  pager: { label: string; offset: number; limit: number; hrefFor: (offset: number) => string };
  /** The rows the service counts for the filter (its pagination's total) and this page's, drawn. */
  total: (value: T) => number;
  rows: (value: T) => ReactNode[];
  columns: number;
  empty: { pastEnd: string; filtered: string; none: string };
}) {
  const { loaded } = props;
  return (
    <section aria-labelledby={props.headingId} className="flex flex-col gap-2">
      <h2 id={props.headingId} className="text-sm font-semibold text-ink">
        {props.heading}
      </h2>
      {!loaded.ok ? (
        <Banner tone="danger" role="alert">
          {loaded.message}
        </Banner>
      ) : (
        <div className="rounded-lg border border-line bg-surface">
          <StatusFilter {...props.filter} />
          <div className="border-t border-line">
            <SimpleTable
              nowrapHead
              caption={props.caption}
              head={props.head}
              footer={<Pager {...props.pager} total={props.total(loaded.value)} />}
            >
              {emptyOrRows(props.rows(loaded.value), props.total(loaded.value), props)}
            </SimpleTable>
          </div>
        </div>
      )}
    </section>
  );
}

function emptyOrRows(
  rows: ReactNode[],
  total: number,
  props: { filter: { value: string }; columns: number; empty: { pastEnd: string; filtered: string; none: string } },
): ReactNode {
  if (rows.length > 0) return rows;
  const { empty } = props;
  return (
    <EmptyRow colSpan={props.columns}>
      {total > 0 ? empty.pastEnd : props.filter.value ? empty.filtered : empty.none}
    </EmptyRow>
  );
}
