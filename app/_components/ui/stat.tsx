import type { ReactNode } from "react";
import { cn } from "../cn";

export type StatGroupProps = { children: ReactNode; className?: string; label?: string };

/** A row of totals; a <dl> so each label is tied to its value for screen readers. */
export function StatGroup({ children, className, label }: StatGroupProps) {
  return (
    <dl aria-label={label} className={cn("grid grid-cols-[repeat(auto-fill,minmax(12rem,1fr))] gap-3", className)}>
      {children}
    </dl>
  );
}

export type StatProps = {
  label: ReactNode;
  /** Usually a <Money> or a count. */
  value: ReactNode;
  /** A short line under the value ("3 refund events"). */
  hint?: ReactNode;
  className?: string;
};

/** One total: label above, large value below. Must sit inside <StatGroup>. */
export function Stat({ label, value, hint, className }: StatProps) {
  return (
    <div className={cn("rounded-lg border border-line bg-surface px-3 py-2.5", className)}>
      <dt className="text-xs font-medium text-ink-muted">{label}</dt>
      <dd className="mt-1 text-base font-semibold whitespace-nowrap tabular-nums text-ink">{value}</dd>
      {hint ? <dd className="mt-0.5 text-xs text-ink-muted">{hint}</dd> : null}
    </div>
  );
}
