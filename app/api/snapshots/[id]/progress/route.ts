// GET /api/snapshots/[id]/progress – a snapshot pull's progress, polled by the Payouts page while it runs
import { z } from "zod";
import { getDb } from "@/db";
import { getPull } from "@/db/queries/snapshots";
import { AppError } from "@/lib/errors";
import { requireSelectedGame } from "@/lib/games/games";
import { gameIdSchema } from "@/lib/games/schemas";
import { defineRoute } from "@/lib/routes";
import { toProgressView } from "@/app/(desk)/payouts/progress-view";

const pullIdSchema = z.uuid({ message: "must be a pull id" });

export const GET = defineRoute<{ id: string }>("viewer", async (request, { user, params }) => {
  const id = pullIdSchema.safeParse(params.id);
  if (!id.success) throw new AppError("INVALID_INPUT", "id: must be a pull id", { field: "id" });
  const db = getDb();
  // The game the page showing the pull was drawn for (every game is open to every role), else the one selected: a
  // switch in another tab does not leave the page's progress unanswered.
  const named = gameIdSchema.safeParse(new URL(request.url).searchParams.get("game"));
  const gameId = named.success ? named.data : (await requireSelectedGame(db, user)).id;
  const pull = await getPull(db, { gameId, pullId: id.data });
  if (!pull) throw new AppError("NOT_FOUND", "No such snapshot pull for this game.");
  return Response.json(toProgressView(pull), { headers: { "Cache-Control": "no-store" } });
});
