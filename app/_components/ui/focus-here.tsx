"use client";

import { type ReactNode, useEffect, useRef } from "react";

/**
 * Takes the keyboard focus when it appears, so a screen reader announces what replaced the control the person just
 * used (a review step after "Review", a result after "Refund"). Focusable by script only (tabIndex -1).
 */
export function FocusHere({ children, className, label }: { children: ReactNode; className?: string; label?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <div
      ref={ref}
      tabIndex={-1}
      aria-label={label}
      role={label ? "group" : undefined}
      className={className ? `${className} outline-none` : "outline-none"}
    >
      {children}
    </div>
  );
}
