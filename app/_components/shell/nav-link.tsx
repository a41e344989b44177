"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { cn } from "../cn";

/**
 * A navigation link marked aria-current="page" on its own area (the area's sub-pages count too), and on the pages
 * under `also` that belong to it.
 */
export function NavLink({
  href,
  also = [],
  children,
}: {
  href: string;
  also?: readonly string[];
  children: ReactNode;
}) {
  const pathname = usePathname();
  const active = [href, ...also].some((area) => pathname === area || pathname.startsWith(`${area}/`));
  return (
    <Link
      href={href}
      aria-current={active ? "page" : undefined}
      className={cn(
        "flex items-center rounded-md px-2.5 py-1.5 text-sm font-medium whitespace-nowrap",
        active ? "bg-accent-soft text-accent-ink" : "text-ink-muted hover:bg-subtle hover:text-ink",
      )}
    >
      {children}
    </Link>
  );
}
