"use client";

import { Button } from "@/app/_components/ui/button";
import { PageHeader } from "@/app/_components/ui/page-header";
import { TextLink } from "@/app/_components/ui/text-link";
import { TellAnAdmin, useFocusedOnShow } from "@/app/_components/shell/failure";

/**
 * What a page of the desk shows when it fails unexpectedly: inside the app, its navigation kept, never the error's
 * text (the server's log has it, under the reference shown). Focus moves to the heading so that it is announced.
 */
export default function DeskError({ error, retry }: { error: Error & { digest?: string }; retry: () => void }) {
  const heading = useFocusedOnShow<HTMLDivElement>();
  return (
    <div ref={heading} tabIndex={-1} className="outline-none">
      <PageHeader title="This page could not be shown" />
      <div className="max-w-prose text-ink-muted" role="alert">
        <p>
          Something failed while the page was made or a form was sent. If you had just sent a form, open the page again
          to see whether it took effect before sending it again. <TellAnAdmin digest={error.digest} />
        </p>
      </div>
      <div className="mt-4 flex flex-wrap items-center gap-4">
        <Button onClick={() => retry()}>Try again</Button>
        <TextLink href="/payouts">Back to Payouts</TextLink>
      </div>
    </div>
  );
}
