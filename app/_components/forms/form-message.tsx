"use client";

import { type ReactNode, useEffect, useState } from "react";
import { cn } from "../cn";
import { TONE_SOFT } from "../ui/tone";

export type FormMessageProps = {
  tone: "error" | "success";
  /** Nothing is rendered when empty, so it can take `state.message` directly. */
  children?: ReactNode;
  className?: string;
};

/**
 * How long a success message's live region stays empty in the page before its text goes in. Screen readers read a
 * status region's changes, not a region that arrives with its text already in it: some read that late or never.
 */
const STATUS_FILL_MS = 100;

/**
 * A form-level result: errors use role="alert" (read out at once, as they arrive), success role="status" (read when
 * idle), its region put in the page empty and filled a moment later so that the text is a change screen readers read.
 * Field-specific problems belong on the field (<Field error>), this says what happened to the whole form.
 */
export function FormMessage({ tone, children, className }: FormMessageProps) {
  if (children === null || children === undefined || children === "" || children === false) return null;
  const look = cn("rounded-md border px-3 py-2 text-sm", TONE_SOFT[tone === "error" ? "danger" : "success"], className);
  if (tone === "error")
    return (
      <div role="alert" className={look}>
        {children}
      </div>
    );
  return <StatusMessage className={look}>{children}</StatusMessage>;
}

function StatusMessage({ children, className }: { children: ReactNode; className: string }) {
  const [filled, setFilled] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setFilled(true), STATUS_FILL_MS);
    return () => clearTimeout(timer);
  }, []);
  return (
    <div role="status" className={filled ? className : undefined}>
      {filled ? children : null}
    </div>
  );
}
