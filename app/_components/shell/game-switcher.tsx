"use client";

import { useActionState } from "react";
import { SubmitButton } from "../forms/submit-button";
import { Select } from "../forms/select";
import type { ShellAction, ShellActionState } from "./shell-action";

export type ShellGame = { id: string; name: string; environment: string };

/**
 * Picks the game the session works on. A plain form with a select and a button (no auto-submit on change: moving
 * through the options with the keyboard must not switch games). Works without JavaScript. Posts `gameId`.
 */
export function GameSwitcher({
  games,
  selectedGameId,
  action,
}: {
  games: ShellGame[];
  selectedGameId: string | null;
  action: ShellAction;
}) {
  // The server action itself goes to the form (no client wrapper), so the form works before hydration.
  const [state, formAction] = useActionState<ShellActionState, FormData>(action, null);

  if (games.length === 0) return <p className="text-xs text-ink-muted">No games yet.</p>;

  return (
    <form action={formAction} className="flex flex-col gap-1">
      <label htmlFor="shell-game" className="text-xs font-medium text-ink-muted">
        Game
      </label>
      <div className="flex gap-1.5">
        <Select
          id="shell-game"
          name="gameId"
          className="min-w-0 flex-1"
          // React resets the form after the switch, and a select shows the choice it was first drawn with: keyed by
          // the game, it is drawn again for the game switched to.
          key={selectedGameId ?? ""}
          defaultValue={selectedGameId ?? ""}
          required
          aria-describedby={state && !state.ok ? "shell-game-error" : undefined}
          placeholder={selectedGameId ? undefined : "Choose a game"}
          options={games.map((game) => ({
            value: game.id,
            label: game.environment === "sandbox" ? `${game.name} (sandbox)` : game.name,
          }))}
        />
        <SubmitButton variant="secondary" size="md">
          Switch
        </SubmitButton>
      </div>
      {state && !state.ok ? (
        <p id="shell-game-error" role="alert" className="text-xs font-medium text-danger">
          Game: {state.message ?? "could not switch games."}
        </p>
      ) : null}
    </form>
  );
}
