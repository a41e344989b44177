import { cn } from "../cn";

export type ButtonVariant = "primary" | "secondary" | "danger" | "ghost";
export type ButtonSize = "sm" | "md";

const BASE =
  "inline-flex shrink-0 items-center justify-center gap-1.5 rounded-md border font-medium whitespace-nowrap " +
  "transition-colors select-none disabled:cursor-not-allowed disabled:opacity-60 aria-disabled:cursor-not-allowed " +
  "aria-disabled:opacity-60";

const VARIANTS: Record<ButtonVariant, string> = {
  primary: "border-accent bg-accent text-ink-inverse hover:bg-accent-hover hover:border-accent-hover",
  secondary: "border-line-strong bg-surface text-ink hover:bg-subtle",
  danger: "border-danger bg-danger text-ink-inverse hover:bg-danger-hover hover:border-danger-hover",
  ghost: "border-transparent bg-transparent text-ink hover:bg-subtle",
};

const SIZES: Record<ButtonSize, string> = {
  sm: "h-7 px-2.5 text-xs",
  md: "h-8 px-3 text-sm",
};

/** Class names shared by <Button>, <LinkButton> and Radix triggers that render their own element. */
export function buttonClassName(
  options: { variant?: ButtonVariant; size?: ButtonSize; className?: string } = {},
): string {
  return cn(BASE, VARIANTS[options.variant ?? "secondary"], SIZES[options.size ?? "md"], options.className);
}
