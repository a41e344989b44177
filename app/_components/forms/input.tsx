import type { ComponentProps } from "react";
import { cn } from "../cn";
import { CONTROL_CLASS } from "./control-styles";

export type InputProps = ComponentProps<"input">;

/** A styled native text input; use inside <Field> for its label and messages. */
export function Input({ className, type = "text", ...props }: InputProps) {
  return <input type={type} className={cn(CONTROL_CLASS, "h-8", className)} {...props} />;
}

/** An amount typed as a decimal ("12.50"): the decimal keypad on phones, no autofill, a narrow box. */
export function AmountInput({ className, ...props }: InputProps) {
  return <Input inputMode="decimal" autoComplete="off" className={cn("max-w-40", className)} {...props} />;
}
