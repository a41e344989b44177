"use client";

import { DropdownMenu as RadixMenu } from "radix-ui";
import type { ComponentProps, ReactNode } from "react";
import { cn } from "../cn";

/**
 * A menu of actions (Radix): opens with Enter, Space or ArrowDown on the trigger, arrow keys move, typing jumps,
 * Escape closes and returns focus.
 *
 *   <DropdownMenu trigger={<Button>More</Button>}>
 *     <DropdownMenuItem onSelect={...}>Hold…</DropdownMenuItem>
 *   </DropdownMenu>
 */
export function DropdownMenu({
  trigger,
  children,
  align = "end",
  label,
}: {
  trigger: ReactNode;
  children: ReactNode;
  align?: "start" | "center" | "end";
  /** Accessible name of the menu when the trigger's text is not enough. */
  label?: string;
}) {
  return (
    <RadixMenu.Root modal={false}>
      <RadixMenu.Trigger asChild>{trigger}</RadixMenu.Trigger>
      <RadixMenu.Portal>
        <RadixMenu.Content
          align={align}
          sideOffset={4}
          aria-label={label}
          className="z-50 min-w-44 rounded-md border border-line bg-surface p-1 text-sm shadow-lg"
        >
          {children}
        </RadixMenu.Content>
      </RadixMenu.Portal>
    </RadixMenu.Root>
  );
}

export type DropdownMenuItemProps = ComponentProps<typeof RadixMenu.Item> & { tone?: "default" | "danger" };

export function DropdownMenuItem({ tone = "default", className, ...props }: DropdownMenuItemProps) {
  return (
    <RadixMenu.Item
      className={cn(
        "flex cursor-default items-center gap-2 rounded px-2 py-1.5 select-none focus-visible:-outline-offset-2",
        "data-disabled:cursor-not-allowed data-disabled:opacity-50",
        tone === "danger" ? "text-danger data-highlighted:bg-danger-soft" : "text-ink data-highlighted:bg-accent-soft",
        className,
      )}
      {...props}
    />
  );
}

export function DropdownMenuLabel({ className, ...props }: ComponentProps<typeof RadixMenu.Label>) {
  return <RadixMenu.Label className={cn("px-2 py-1 text-xs font-medium text-ink-muted", className)} {...props} />;
}

export function DropdownMenuSeparator({ className, ...props }: ComponentProps<typeof RadixMenu.Separator>) {
  return <RadixMenu.Separator className={cn("my-1 h-px bg-line", className)} {...props} />;
}
