import type { ReactNode } from "react";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { LinkButton } from "@/app/_components/ui/link-button";
import type { Role } from "@/lib/auth/roles";

/** Shown by every area page while no game is set up, under the page's own header when it is given. */
export function NoGame({ role, header }: { role: Role; header?: ReactNode }) {
  return (
    <>
      {header}
      <EmptyState
        title="No game is set up yet"
        action={role === "admin" ? <LinkButton href="/settings/games">Add a game</LinkButton> : undefined}
      >
        {role === "admin"
          ? "Add the game's service credentials under Settings → Games; snapshots, lookups and webhooks work per game."
          : "Ask an admin to add a game under Settings → Games."}
      </EmptyState>
    </>
  );
}
