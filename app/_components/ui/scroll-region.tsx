import type { ReactNode, Ref } from "react";

/**
 * A named region that scrolls (a wide table, a long JSON body). It takes the keyboard focus so that a keyboard alone
 * can scroll it with the arrow keys (WCAG 2.1.1; axe's scrollable-region-focusable).
 */
export function ScrollRegion({
  label,
  className,
  children,
  ref,
}: {
  label: string;
  className?: string;
  children: ReactNode;
  /** For a control inside that is about to be replaced to hand the focus to the region (a data table's empty body). */
  ref?: Ref<HTMLElement>;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to scroll.
    <section ref={ref} tabIndex={0} aria-label={label} className={className}>
      {children}
    </section>
  );
}
