"use client";

import { useFormStatus } from "react-dom";
import { Button, type ButtonProps } from "../ui/button";

export type SubmitButtonProps = Omit<ButtonProps, "type" | "pending">;

/**
 * The submit button of a <form action={...}>. While the action runs it is marked disabled and busy, keeping focus: a
 * second click does nothing, and Enter in a field cannot submit again either (the press it makes is refused).
 */
export function SubmitButton({ variant = "primary", ...props }: SubmitButtonProps) {
  const { pending } = useFormStatus();
  return <Button type="submit" variant={variant} pending={pending} {...props} />;
}
