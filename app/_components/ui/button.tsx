import type { ComponentProps } from "react";
import { buttonClassName, type ButtonSize, type ButtonVariant } from "./button-styles";
import { Spinner } from "./spinner";

export type ButtonProps = ComponentProps<"button"> & {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** Shows a spinner, sets aria-busy and disables the button so it cannot be pressed twice. */
  pending?: boolean;
  /** Label while pending, e.g. "Approving…"; defaults to the normal label. */
  pendingLabel?: string;
};

/** A button. `type` defaults to "button" so a button inside a form never submits by accident. */
export function Button({
  variant,
  size,
  pending = false,
  pendingLabel,
  disabled,
  className,
  type = "button",
  children,
  ...props
}: ButtonProps) {
  return (
    <button
      type={type}
      disabled={disabled || pending}
      aria-busy={pending || undefined}
      className={buttonClassName({ variant, size, className })}
      {...props}
    >
      {pending ? <Spinner /> : null}
      {pending && pendingLabel ? pendingLabel : children}
    </button>
  );
}
