"use client";

import { useRouter } from "next/navigation";
import type { ConfirmResult } from "@/app/_components/ui/confirm-dialog";
import { GAME_SWITCHED } from "@/lib/action-result";

/**
 * For a dialog's `onRefused`: a refusal because what the page showed moved on (CONFLICT) draws the page again behind
 * the open dialog, which then shows what is confirmed next. Not after a game switched in another tab: that would
 * draw the other game.
 */
export function useRefreshOnConflict(): (result: Extract<ConfirmResult, { ok: false }>) => void {
  const router = useRouter();
  return (result) => {
    if (result.code === "CONFLICT" && result.message !== GAME_SWITCHED) router.refresh();
  };
}
