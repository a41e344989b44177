// GET /api/payee-totals – year-end payee totals of the selected game as CSV
import { getDb } from "@/db";
import { startPayeeTotalsExport } from "@/lib/accounting/payee-totals";
import { calendarYearSchema } from "@/lib/accounting/schemas";
import { AppError } from "@/lib/errors";
import { csvDownloadResponse, readBomQuery } from "@/lib/exports/http";
import { requireDownloadGame } from "@/lib/games/download-game";
import { defineRoute } from "@/lib/routes";

export const GET = defineRoute("finance", async (request, { user }) => {
  const url = new URL(request.url);
  const year = calendarYearSchema.safeParse(url.searchParams.get("year") ?? "");
  if (!year.success)
    throw new AppError("INVALID_INPUT", `year: ${year.error.issues[0]?.message ?? "is invalid"}`, { field: "year" });
  const db = getDb();
  const game = await requireDownloadGame(db, user, request);
  const started = await startPayeeTotalsExport(
    db,
    { gameId: game.id, year: year.data, bom: readBomQuery(url.searchParams) },
    { actor: { id: user.id, email: user.email }, via: "web" },
  );
  return csvDownloadResponse(started, request.signal);
});
