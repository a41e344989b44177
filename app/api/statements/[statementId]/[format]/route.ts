// GET /api/statements/[statementId]/[format] – a recipient statement document (PDF or CSV) for finance
import { z } from "zod";
import { getDb } from "@/db";
import { AppError } from "@/lib/errors";
import { requireDownloadGame } from "@/lib/games/download-game";
import { defineRoute } from "@/lib/routes";
import { STATEMENT_FORMATS } from "@/lib/statements/hrefs";
import { renderStatement } from "@/lib/statements/render";
import { documentResponse } from "@/lib/statements/response";

const paramsSchema = z.object({ statementId: z.uuid(), format: z.enum(STATEMENT_FORMATS) });

export const GET = defineRoute<{ statementId: string; format: string }>(
  "finance",
  async (request, { user, params }) => {
    const parsed = paramsSchema.safeParse(params);
    if (!parsed.success) throw new AppError("NOT_FOUND", "No such statement document.");
    const db = getDb();
    const game = await requireDownloadGame(db, user, request);
    const rendered = await renderStatement(
      db,
      { gameId: game.id, statementId: parsed.data.statementId },
      { actor: { id: user.id, email: user.email }, via: "web" },
    );
    return documentResponse(rendered, parsed.data.format);
  },
);
