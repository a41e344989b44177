// GET /api/exports/[kind] – CSV exports for accounting (payouts, lines, reversals, journal), streamed
import { z } from "zod";
import { getDb } from "@/db";
import { AppError } from "@/lib/errors";
import { exportResponse } from "@/lib/exports/http";
import { exportKindSchema } from "@/lib/exports/kinds";
import { exportIdSchema } from "@/lib/exports/run";
import { requireSelectedGame } from "@/lib/games/games";
import { defineRoute } from "@/lib/routes";

const exportQuerySchema = z
  .object({
    kind: exportKindSchema,
    snapshot: exportIdSchema.optional(),
    batch: exportIdSchema.optional(),
    bom: z.enum(["0", "1"], { message: "must be 1 (add a byte-order mark for spreadsheets) or 0" }).default("0"),
  })
  .refine((q) => Boolean(q.snapshot) !== Boolean(q.batch), { message: "give either a snapshot id or a payout batch id", path: ["snapshot"] });

export const GET = defineRoute<{ kind: string }>("finance", async (request, { user, params }) => {
  const url = new URL(request.url);
  const parsed = exportQuerySchema.safeParse({
    kind: params.kind,
    snapshot: url.searchParams.get("snapshot") ?? undefined,
    batch: url.searchParams.get("batch") ?? undefined,
    bom: url.searchParams.get("bom") ?? undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? "query");
    throw new AppError("INVALID_INPUT", `${field}: ${issue?.message ?? "is invalid"}`, { field });
  }
  const db = getDb();
  const game = await requireSelectedGame(db, user);
  return exportResponse(db, {
    kind: parsed.data.kind,
    snapshotId: parsed.data.snapshot,
    batchId: parsed.data.batch,
    gameId: game.id,
    bom: parsed.data.bom === "1",
    actor: { id: user.id, email: user.email },
    via: "web",
  });
});
