"use server";

import { revalidatePath } from "next/cache";
import { getDb } from "@/db";
import { defineAction } from "@/lib/actions";
import { requireSelectedGame } from "@/lib/games/games";
import { snapshotWindowInputSchema } from "@/lib/snapshots/progress";
import { requestSnapshot } from "@/lib/snapshots/pull";
import { windowLabel } from "@/lib/payouts/window-key";

/** "Take snapshot": queues a background pull of the window (or finds the one already under way). */
export const takeSnapshotAction = defineAction(
  { name: "takeSnapshot", role: "finance", input: snapshotWindowInputSchema },
  async (window, { user }) => {
    const db = getDb();
    const game = await requireSelectedGame(db, user);
    const { pullId, deduplicated } = await requestSnapshot(db, {
      gameId: game.id,
      window,
      requestedBy: { id: user.id, email: user.email },
      via: "ui",
    });
    revalidatePath("/payouts");
    return {
      ok: true,
      message: deduplicated
        ? `A pull of ${windowLabel(window)} was already under way: this request joined it (its progress is below).`
        : `Snapshot of ${windowLabel(window)} queued.`,
      data: { pullId, deduplicated },
    };
  },
);
