"use client";

import { Dialog as RadixDialog } from "radix-ui";
import type { ReactNode } from "react";
import { cn } from "../cn";

export type DialogProps = {
  /** The element that opens the dialog, usually a <Button>; it gets focus back when the dialog closes. */
  trigger?: ReactNode;
  open?: boolean;
  defaultOpen?: boolean;
  onOpenChange?: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  /** Actions at the bottom, right-aligned; put the cancel button in a <DialogClose asChild>. */
  footer?: ReactNode;
  size?: "sm" | "md" | "lg";
};

const WIDTHS = { sm: "max-w-sm", md: "max-w-lg", lg: "max-w-3xl" } as const;

/**
 * A modal dialog (Radix): focus moves in and is trapped, Escape and the close button close it, focus returns to
 * the trigger. The title names the dialog and the description describes it for screen readers.
 */
export function Dialog({
  trigger,
  open,
  defaultOpen,
  onOpenChange,
  title,
  description,
  children,
  footer,
  size = "md",
}: DialogProps) {
  return (
    <RadixDialog.Root open={open} defaultOpen={defaultOpen} onOpenChange={onOpenChange}>
      {trigger ? <RadixDialog.Trigger asChild>{trigger}</RadixDialog.Trigger> : null}
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-40 bg-ink/40" />
        <RadixDialog.Content
          className={cn(
            "fixed top-1/2 left-1/2 z-50 flex max-h-[85vh] w-[calc(100vw-2rem)] -translate-x-1/2 -translate-y-1/2 " +
              "flex-col",
            "rounded-lg border border-line bg-surface shadow-xl",
            WIDTHS[size],
          )}
        >
          <div className="flex items-start justify-between gap-4 border-b border-line px-4 py-3">
            <div className="min-w-0">
              <RadixDialog.Title className="text-base font-semibold text-ink">{title}</RadixDialog.Title>
              {description ? (
                <RadixDialog.Description className="mt-0.5 text-ink-muted">{description}</RadixDialog.Description>
              ) : null}
            </div>
            <RadixDialog.Close
              aria-label="Close"
              className={
                "-mr-1 inline-flex size-7 shrink-0 items-center justify-center rounded-md text-ink-muted " +
                "hover:bg-subtle hover:text-ink"
              }
            >
              <svg aria-hidden="true" viewBox="0 0 16 16" className="size-4">
                <path d="M4 4l8 8M12 4l-8 8" stroke="currentColor" strokeWidth="1.5" fill="none" />
              </svg>
            </RadixDialog.Close>
          </div>
          {children ? <div className="min-h-0 overflow-y-auto px-4 py-3">{children}</div> : null}
          {footer ? <DialogFooter>{footer}</DialogFooter> : null}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}

/**
 * The action row of a dialog; used by <Dialog footer> and by dialogs whose footer sits inside a form. Ruled off from
 * the body above it, unless there is none (`ruled={false}`: the title's own rule is enough).
 */
export function DialogFooter({
  children,
  className,
  ruled = true,
}: {
  children: ReactNode;
  className?: string;
  ruled?: boolean;
}) {
  return (
    <div
      className={cn(
        "flex flex-wrap items-center justify-end gap-2 px-4 py-3",
        ruled && "border-t border-line",
        className,
      )}
    >
      {children}
    </div>
  );
}

/** Closes the surrounding dialog: `<DialogClose asChild><Button>Cancel</Button></DialogClose>`. */
export const DialogClose = RadixDialog.Close;
