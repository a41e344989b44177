import type { Metadata } from "next";
import { DeskNotice } from "./desk-notice";

export const metadata: Metadata = { title: "Not found" };

/**
 * What a page of the desk shows for something that does not exist for the selected game: inside the app, with its
 * navigation and the game switcher (a link shared by someone working on another game is the usual cause).
 */
export default function DeskNotFound() {
  return (
    <DeskNotice title="Nothing here for this game">
      <p>
        There is no such page, or what it names belongs to another game than the one selected. If the link came from
        someone else, switch to their game in the sidebar and open it again.
      </p>
    </DeskNotice>
  );
}
