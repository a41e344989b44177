import type { ReactNode } from "react";
import { cn } from "../cn";
import { TONE_SOFT } from "../ui/tone";

export type FormMessageProps = {
  tone: "error" | "success";
  /** Nothing is rendered when empty, so it can take `state.message` directly. */
  children?: ReactNode;
  className?: string;
};

/**
 * A form-level result: errors use role="alert" (read out at once), success role="status" (read when idle).
 * Field-specific problems belong on the field (<Field error>), this says what happened to the whole form.
 */
export function FormMessage({ tone, children, className }: FormMessageProps) {
  if (children === null || children === undefined || children === "" || children === false) return null;
  return (
    <div
      role={tone === "error" ? "alert" : "status"}
      className={cn(
        "rounded-md border px-3 py-2 text-sm",
        TONE_SOFT[tone === "error" ? "danger" : "success"],
        className,
      )}
    >
      {children}
    </div>
  );
}
