import type { ComponentProps } from "react";
import { buttonClassName, type ButtonSize, type ButtonVariant } from "./button-styles";
import { Spinner } from "./spinner";

export type ButtonProps = ComponentProps<"button"> & {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /**
   * Shows a spinner, sets aria-busy and marks the button disabled (aria-disabled) so it cannot be pressed twice: a
   * press, or Enter in one of its form's fields, does nothing. Not the `disabled` attribute: a browser takes focus away
   * from a button that becomes disabled (to the document's body), so a keyboard user would be left at the page's start
   * once the action answered.
   */
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
  onClick,
  ...props
}: ButtonProps) {
  return (
    <button
      type={type}
      disabled={disabled}
      className={buttonClassName({ variant, size, className })}
      {...props}
      aria-disabled={pending || props["aria-disabled"] || undefined}
      aria-busy={pending || undefined}
      // While pending a press is refused here; a form's implicit submission is such a press, refused with it.
      onClick={pending ? (event) => event.preventDefault() : onClick}
    >
      {pending ? <Spinner /> : null}
      {pending && pendingLabel ? pendingLabel : children}
    </button>
  );
}
