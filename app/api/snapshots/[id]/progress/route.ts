// GET /api/snapshots/[id]/progress – a snapshot pull's progress, polled by the Payouts page while it runs
import { z } from "zod";
import { getDb } from "@/db";
import { getPull } from "@/db/queries/snapshots";
import { AppError } from "@/lib/errors";
import { requireSelectedGame } from "@/lib/games/games";
import { defineRoute } from "@/lib/routes";
import { formatInstant } from "@/lib/time";

const pullIdSchema = z.uuid({ message: "must be a pull id" });

export const GET = defineRoute<{ id: string }>("viewer", async (_request, { user, params }) => {
  const id = pullIdSchema.safeParse(params.id);
  if (!id.success) throw new AppError("INVALID_INPUT", "id: must be a pull id", { field: "id" });
  const db = getDb();
  const game = await requireSelectedGame(db, user);
  const pull = await getPull(db, { gameId: game.id, pullId: id.data });
  if (!pull) throw new AppError("NOT_FOUND", "No such snapshot pull for this game.");
  return Response.json(
    {
      id: pull.id,
      status: pull.status,
      phase: pull.phase,
      window: { start: formatInstant(pull.window.startMs), end: formatInstant(pull.window.endMs) },
      attempts: pull.attempts,
      pagesFetched: pull.pagesFetched,
      pagesEstimated: pull.pagesEstimated,
      recipientsFetched: pull.recipientsFetched,
      recipientsTotal: pull.recipientsTotal,
      linesFetched: pull.linesFetched,
      reversalsFetched: pull.reversalsFetched,
      rateLimited: pull.rateLimited,
      retries: pull.retries,
      subWindows: pull.subWindows,
      etaAt: pull.etaAt ? pull.etaAt.toISOString() : null,
      startedAt: pull.startedAt ? pull.startedAt.toISOString() : null,
      snapshotId: pull.snapshotId,
      error: pull.error,
    },
    { headers: { "Cache-Control": "no-store" } },
  );
});
