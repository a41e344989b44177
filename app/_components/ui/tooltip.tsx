"use client";

import { Tooltip as RadixTooltip } from "radix-ui";
import type { ReactNode } from "react";

export type TooltipProps = {
  content: ReactNode;
  /** One focusable element (a button, a link, or an element with tabIndex={0}). */
  children: ReactNode;
  side?: "top" | "right" | "bottom" | "left";
};

/**
 * A hint shown on hover and on keyboard focus, linked with aria-describedby while open. Never put the only copy
 * of important information in a tooltip. Carries its own provider, so it works anywhere in the tree.
 */
export function Tooltip({ content, children, side = "top" }: TooltipProps) {
  return (
    <RadixTooltip.Provider delayDuration={300}>
      <RadixTooltip.Root>
        <RadixTooltip.Trigger asChild>{children}</RadixTooltip.Trigger>
        <RadixTooltip.Portal>
          <RadixTooltip.Content
            side={side}
            sideOffset={4}
            className="z-50 max-w-xs rounded-md bg-ink px-2 py-1 text-xs text-ink-inverse shadow-md"
          >
            {content}
            <RadixTooltip.Arrow className="fill-ink" />
          </RadixTooltip.Content>
        </RadixTooltip.Portal>
      </RadixTooltip.Root>
    </RadixTooltip.Provider>
  );
}
