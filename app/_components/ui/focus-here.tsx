"use client";

import { type ReactNode, useEffect, useRef } from "react";

/**
 * Takes the keyboard focus when it appears, so a screen reader announces what replaced the control the person just
 * used (a review step after "Review", a result after "Refund"). Focusable by script only (tabIndex -1).
 */
export function FocusHere({ children, className, label }: { children: ReactNode; className?: string; label?: string }) {
  const ref = useRef<HTMLElement & HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  const classes = className ? `${className} outline-none` : "outline-none";
  // With a name it is a region the screen reader announces by that name; without one, a plain wrapper.
  if (label)
    return (
      <section ref={ref} tabIndex={-1} aria-label={label} className={classes}>
        {children}
      </section>
    );
  return (
    <div ref={ref} tabIndex={-1} className={classes}>
      {children}
    </div>
  );
}
