"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { cn } from "../cn";

/** A navigation link marked aria-current="page" on its own area (the area's sub-pages count too). */
export function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const pathname = usePathname();
  const active = pathname === href || pathname.startsWith(`${href}/`);
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
