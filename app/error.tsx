"use client";

import { Button } from "@/app/_components/ui/button";
import { TextLink } from "@/app/_components/ui/text-link";
import { TellAnAdmin, useFocusedOnShow } from "@/app/_components/shell/failure";

/**
 * What the desk shows when a page fails before its own layout is drawn (the sign-in page, or the desk's frame: the
 * signed-in person and their games are read first, so a database that does not answer fails there): the desk's own
 * words, never the error's text (the server's log has it, under the reference shown), and a way to try again. A
 * failure inside a page keeps the desk's navigation instead (app/(desk)/error.tsx).
 */
export default function AppError({ error, retry }: { error: Error & { digest?: string }; retry: () => void }) {
  const heading = useFocusedOnShow<HTMLHeadingElement>();
  return (
    <main id="main" className="flex min-h-screen items-center justify-center bg-canvas px-4">
      <div className="w-full max-w-md rounded-lg border border-line bg-surface p-8 shadow-sm">
        <h1 ref={heading} tabIndex={-1} className="text-xl font-semibold text-ink outline-none">
          Payout Desk could not load this page
        </h1>
        <div role="alert" className="mt-2 text-sm text-ink-muted">
          <p>
            What the page needs could not be read (the desk's database may be unavailable for a moment). Nothing was
            changed by showing it. Try again shortly. <TellAnAdmin digest={error.digest} />
          </p>
        </div>
        <div className="mt-6 flex flex-wrap items-center gap-4">
          <Button onClick={() => retry()}>Try again</Button>
          <TextLink href="/payouts">Go to Payouts</TextLink>
        </div>
      </div>
    </main>
  );
}
