// GET /api/profiles/export – the selected game's payout profiles as CSV, details masked (last four characters)
import { getDb } from "@/db";
import { requireDownloadGame } from "@/lib/games/download-game";
import { exportProfiles } from "@/lib/profiles/bulk";
import { defineRoute } from "@/lib/routes";

export const GET = defineRoute("finance", async (request, { user }) => {
  const db = getDb();
  const game = await requireDownloadGame(db, user, request);
  const acting = { actor: { id: user.id, email: user.email }, via: "web" as const };
  const { csv } = await exportProfiles(db, { gameId: game.id }, acting);
  return new Response(csv, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="payout-profiles-${game.id}.csv"`,
      "cache-control": "no-store",
    },
  });
});
