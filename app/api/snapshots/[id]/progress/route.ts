// GET /api/snapshots/[id]/progress – a snapshot pull's progress, polled by the Payouts page while it runs
import { z } from "zod";
import { getDb } from "@/db";
import { getPull } from "@/db/queries/snapshots";
import { AppError } from "@/lib/errors";
import { requireSelectedGame } from "@/lib/games/games";
import { defineRoute } from "@/lib/routes";
import { toProgressView } from "@/app/(desk)/payouts/progress-view";

const pullIdSchema = z.uuid({ message: "must be a pull id" });

export const GET = defineRoute<{ id: string }>("viewer", async (_request, { user, params }) => {
  const id = pullIdSchema.safeParse(params.id);
  if (!id.success) throw new AppError("INVALID_INPUT", "id: must be a pull id", { field: "id" });
  const db = getDb();
  const game = await requireSelectedGame(db, user);
  const pull = await getPull(db, { gameId: game.id, pullId: id.data });
  if (!pull) throw new AppError("NOT_FOUND", "No such snapshot pull for this game.");
  return Response.json(toProgressView(pull), { headers: { "Cache-Control": "no-store" } });
});
