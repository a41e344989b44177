import Link from "next/link";
import type { ComponentProps } from "react";
import { cn } from "../cn";

/** An inline link in running text or a table cell (e.g. a row's primary link). */
export function TextLink({ className, ...props }: ComponentProps<typeof Link>) {
  return (
    <Link
      className={cn("font-medium text-accent underline-offset-2 hover:underline hover:text-accent-hover", className)}
      {...props}
    />
  );
}
