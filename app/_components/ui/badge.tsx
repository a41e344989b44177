import type { ReactNode } from "react";
import { cn } from "../cn";
import { TONE_SOFT, type Tone } from "./tone";

export type BadgeProps = { tone?: Tone; children: ReactNode; className?: string; title?: string; wrap?: boolean };

/**
 * A short status label ("Paid", "Held", "Unresolved recipient"). The text carries the meaning, colour only adds to it.
 * On one line, unless `wrap` (in a narrow table column, a longer label breaks between its words).
 */
export function Badge({ tone = "neutral", children, className, title, wrap = false }: BadgeProps) {
  return (
    <span
      title={title}
      className={cn(
        "inline-flex items-center gap-1 rounded border px-1.5 py-px text-xs font-medium",
        !wrap && "whitespace-nowrap",
        TONE_SOFT[tone],
        className,
      )}
    >
      {children}
    </span>
  );
}
