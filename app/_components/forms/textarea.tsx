import type { ComponentProps } from "react";
import { cn } from "../cn";
import { CONTROL_CLASS } from "./control-styles";

export type TextareaProps = ComponentProps<"textarea">;

/** A styled native textarea (reasons, notes); use inside <Field>. */
export function Textarea({ className, rows = 3, ...props }: TextareaProps) {
  return <textarea rows={rows} className={cn(CONTROL_CLASS, "py-1.5 leading-snug", className)} {...props} />;
}
