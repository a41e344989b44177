import type { ReactNode } from "react";
import { cn } from "../cn";
import { TONE_SOFT, type Tone } from "./tone";

export type BannerProps = {
  tone?: Tone;
  title?: ReactNode;
  children?: ReactNode;
  /** A link or button at the end, e.g. "Pull again". */
  action?: ReactNode;
  /** "alert" only for something that just went wrong; page-wide standing notices need no role. */
  role?: "alert" | "status" | "note";
  className?: string;
};

/** A page-wide notice (stale snapshot, drift, service unreachable). */
export function Banner({ tone = "info", title, children, action, role, className }: BannerProps) {
  return (
    <div
      role={role}
      className={cn(
        "flex flex-wrap items-start gap-x-4 gap-y-2 rounded-md border px-3 py-2",
        TONE_SOFT[tone],
        className,
      )}
    >
      <div className="min-w-0 flex-1">
        {title ? <p className="font-semibold">{title}</p> : null}
        {children ? <div className={cn(title ? "mt-0.5" : undefined)}>{children}</div> : null}
      </div>
      {action ? <div className="shrink-0">{action}</div> : null}
    </div>
  );
}
