import type { ReactNode } from "react";
import { cn } from "../cn";
import { TONE_SOFT, type Tone } from "./tone";
import { Tooltip } from "./tooltip";

export type BadgeProps = {
  tone?: Tone;
  children: ReactNode;
  className?: string;
  title?: string;
  wrap?: boolean;
  /** False in a table's rows, where a tab stop per row would weigh on the keyboard: the reason is hover only there. */
  focusable?: boolean;
};

/**
 * A short status label ("Paid", "Held", "Unresolved recipient"). The text carries the meaning, colour only adds to it.
 * On one line, unless `wrap` (in a narrow table column, a longer label breaks between its words). A `title` (the
 * reason) is shown on hover and on keyboard focus (the badge takes focus then, unless not `focusable`), and read out
 * with the label by screen readers either way.
 */
export function Badge({ tone = "neutral", children, className, title, wrap = false, focusable = true }: BadgeProps) {
  const tip = title && focusable ? title : undefined;
  const badge = (
    <span
      title={tip ? undefined : title}
      tabIndex={tip ? 0 : undefined}
      // The reason is read with the label (below); the tooltip's own description would say it twice.
      aria-describedby={undefined}
      className={cn(
        "inline-flex items-center gap-1 rounded border px-1.5 py-px text-xs font-medium",
        !wrap && "whitespace-nowrap",
        title && "cursor-help",
        TONE_SOFT[tone],
        className,
      )}
    >
      {children}
      {title ? <span className="sr-only">: {title}</span> : null}
    </span>
  );
  return tip ? <Tooltip content={tip}>{badge}</Tooltip> : badge;
}
