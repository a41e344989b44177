"use client";

import { Popover as RadixPopover } from "radix-ui";
import type { ReactNode } from "react";
import { cn } from "../cn";

export type PopoverProps = {
  trigger: ReactNode;
  children: ReactNode;
  /** Accessible name of the panel ("Filters"). */
  label: string;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  align?: "start" | "center" | "end";
  className?: string;
};

/** A non-modal panel anchored to its trigger (filters, details). Escape or a click outside closes it. */
export function Popover({ trigger, children, label, open, onOpenChange, align = "start", className }: PopoverProps) {
  return (
    <RadixPopover.Root open={open} onOpenChange={onOpenChange}>
      <RadixPopover.Trigger asChild>{trigger}</RadixPopover.Trigger>
      <RadixPopover.Portal>
        <RadixPopover.Content
          align={align}
          sideOffset={4}
          aria-label={label}
          className={cn("z-50 w-72 rounded-md border border-line bg-surface p-3 text-sm shadow-lg", className)}
        >
          {children}
        </RadixPopover.Content>
      </RadixPopover.Portal>
    </RadixPopover.Root>
  );
}

export const PopoverClose = RadixPopover.Close;
