// GET /api/payment-files/[id] – a payment file exactly as written (it holds bank details), audited with its SHA-256
import { z } from "zod";
import { getDb } from "@/db";
import { requireDownloadGame } from "@/lib/games/download-game";
import { downloadPaymentFile } from "@/lib/payments/file-access";
import { AppError } from "@/lib/errors";
import { defineRoute } from "@/lib/routes";

export const GET = defineRoute<{ id: string }>("finance", async (request, { user, params }) => {
  const id = z.uuid().safeParse(params.id);
  if (!id.success) throw new AppError("NOT_FOUND", "No such payment file.");
  const db = getDb();
  const game = await requireDownloadGame(db, user, request);
  const file = await downloadPaymentFile(
    db,
    { gameId: game.id, fileId: id.data },
    { actor: { id: user.id, email: user.email }, via: "web" },
  );
  return new Response(file.content, {
    headers: {
      "content-type": `${file.mediaType}; charset=utf-8`,
      "content-disposition": `attachment; filename="${file.fileName.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
      "cache-control": "no-store",
      "x-content-sha256": file.sha256,
    },
  });
});
