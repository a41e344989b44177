import type { ReactNode } from "react";
import { cn } from "../cn";
import { TONE_SOFT, type Tone } from "./tone";

export type BadgeProps = { tone?: Tone; children: ReactNode; className?: string; title?: string; wrap?: boolean };

/**
 * A short status label ("Paid", "Held", "Unresolved recipient"). The text carries the meaning, colour only adds to it.
 * On one line, unless `wrap` (in a narrow table column, a longer label breaks between its words). A `title` (the
 * reason, shown on hover) is read out too: a badge takes no focus, so nobody using a keyboard or a screen reader
 * could hover it.
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
      {title ? <span className="sr-only">: {title}</span> : null}
    </span>
  );
}
