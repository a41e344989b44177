import type { Metadata } from "next";
import { PageHeader } from "@/app/_components/ui/page-header";
import { TextLink } from "@/app/_components/ui/text-link";

export const metadata: Metadata = { title: "Not found" };

/**
 * What a page of the desk shows for something that does not exist for the selected game: inside the app, with its
 * navigation and the game switcher (a link shared by someone working on another game is the usual cause).
 */
export default function DeskNotFound() {
  return (
    <>
      <PageHeader title="Nothing here for this game" />
      <div className="max-w-prose text-ink-muted">
        <p>
          There is no such page, or what it names belongs to another game than the one selected. If the link came from
          someone else, switch to their game in the sidebar and open it again.
        </p>
        <p className="mt-4">
          <TextLink href="/payouts">Back to Payouts</TextLink>
        </p>
      </div>
    </>
  );
}
