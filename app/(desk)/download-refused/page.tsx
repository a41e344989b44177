import type { Metadata } from "next";
import { cookies } from "next/headers";
import { getDb } from "@/db";
import { requirePageRole } from "@/lib/auth/session";
import { readRefusal, REFUSAL_COOKIE } from "@/lib/browser-request";
import { listGamesOfRender, resolveSelectedGame } from "@/lib/games/games";
import { DeskNotice } from "../desk-notice";

export const metadata: Metadata = { title: "Not downloaded" };

type Props = { searchParams: Promise<Record<string, string>> };

/**
 * Where a download link of a page drawn for one game lands once the session switched to another in a different tab
 * (lib/games/download-game.ts): nothing was downloaded, and which game to switch back to. Also where a download
 * another site started lands (`from=elsewhere`, lib/routes.ts), and any other refused download (`from=refusal`, its
 * words in a cookie, lib/browser-request.ts).
 */
export default async function DownloadRefusedPage({ searchParams }: Props) {
  const user = await requirePageRole("viewer");
  const query = await searchParams;
  if (query.from === "refusal") {
    const words = readRefusal((await cookies()).get(REFUSAL_COOKIE)?.value);
    return (
      <DeskNotice title="Nothing was downloaded">
        <p>{words ?? "The download was refused."}</p>
        <p className="mt-2">Go back to the page you downloaded from, reload it and download again from there.</p>
      </DeskNotice>
    );
  }
  if (query.from === "elsewhere")
    return (
      <DeskNotice title="Nothing was downloaded">
        <p>
          The download was started from another site (a link in an email, a chat or another web page), so it was not
          made: a page elsewhere cannot have your browser download files of Payout Desk as you.
        </p>
        <p className="mt-2">Open the page in Payout Desk and download the file from there.</p>
      </DeskNotice>
    );
  const db = getDb();
  const shownId = query.game ?? "";
  const [games, selected] = await Promise.all([listGamesOfRender(db), resolveSelectedGame(db, user)]);
  const named = games.find((g) => g.id === shownId)?.name;
  const shown = named ?? "another game";
  const now = selected?.name ?? "another game";
  return (
    <DeskNotice title="Nothing was downloaded">
      <p>
        {`The page you downloaded from was opened for ${shown}. The game was then switched to ${now} in another ` +
          `tab, so the file would have been of ${now}, not of the one the page showed.`}
      </p>
      <p className="mt-2">
        {`Switch back to ${named ?? "the game that page was for"} with the game picker, open the page again and ` +
          "download from there."}
      </p>
    </DeskNotice>
  );
}
