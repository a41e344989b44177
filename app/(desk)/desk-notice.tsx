import type { ReactNode } from "react";
import { PageHeader } from "@/app/_components/ui/page-header";
import { TextLink } from "@/app/_components/ui/text-link";

/** A page that only says why there is nothing to show (not allowed, not found), with the way back to Payouts. */
export function DeskNotice({ title, children }: { title: string; children: ReactNode }) {
  return (
    <>
      <PageHeader title={title} />
      <div className="max-w-prose text-ink-muted">
        {children}
        <p className="mt-4">
          <TextLink href="/payouts">Back to Payouts</TextLink>
        </p>
      </div>
    </>
  );
}
