import type { ReactNode } from "react";
import { cn } from "../cn";
import { TONE_SOFT, type Tone } from "./tone";

export type BadgeProps = { tone?: Tone; children: ReactNode; className?: string; title?: string };

/**
 * A short status label ("Paid", "Held", "Unresolved recipient"). The text carries the meaning, colour only adds to it.
 */
export function Badge({ tone = "neutral", children, className, title }: BadgeProps) {
  return (
    <span
      title={title}
      className={cn(
        "inline-flex items-center gap-1 rounded border px-1.5 py-px text-xs font-medium whitespace-nowrap",
        TONE_SOFT[tone],
        className,
      )}
    >
      {children}
    </span>
  );
}
