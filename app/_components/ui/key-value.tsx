import type { ReactNode } from "react";
import { cn } from "../cn";
import { Absent } from "./absent";

export type KeyValueItem = { label: ReactNode; value: ReactNode; key?: string };

export type KeyValueListProps = {
  items: KeyValueItem[];
  /** Two columns of pairs on wide screens. */
  columns?: 1 | 2;
  className?: string;
};

/** An object's fields as a definition list (recipient, subscription, game). Empty values show an em dash. */
export function KeyValueList({ items, columns = 1, className }: KeyValueListProps) {
  return (
    <dl className={cn("grid gap-x-8 gap-y-2", columns === 2 ? "sm:grid-cols-2" : undefined, className)}>
      {items.map((item, index) => (
        <div
          key={item.key ?? index}
          className="grid grid-cols-[minmax(8rem,1fr)_2fr] gap-3 border-b border-line py-1.5"
        >
          <dt className="text-ink-muted">{item.label}</dt>
          <dd className="min-w-0 break-words text-ink">
            {item.value === null || item.value === undefined || item.value === "" ? <Absent /> : item.value}
          </dd>
        </div>
      ))}
    </dl>
  );
}
