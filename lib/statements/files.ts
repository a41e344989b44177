import "server-only";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Db } from "@/db";
import { findBatchGame } from "@/db/queries/payout-lookup";
import type { ActingAs } from "@/core/actor";
import { AppError } from "@/lib/errors";
import { writePrivateFile } from "@/lib/exports/file";
import { renderBatchStatements } from "./render";

export type RenderSummary = {
  batchId: string;
  gameId: string;
  out: string;
  statements: number;
  firstNumber: string | null;
  lastNumber: string | null;
};

/** Writes one PDF and one CSV per statement of a batch into `out`, each named by its statement number. */
export async function writeBatchStatementFiles(
  db: Db,
  params: { batchId: string; out: string; onFile?: (label: string) => void },
  acting: ActingAs,
): Promise<RenderSummary> {
  const gameId = await findBatchGame(db, params.batchId);
  if (!gameId) throw new AppError("NOT_FOUND", "No such payout batch.");
  const out = path.resolve(params.out);
  // A recipient's name, email and earnings: readable by the one who wrote them only, as every export is.
  await mkdir(out, { recursive: true, mode: 0o700 });
  const labels: string[] = [];
  await renderBatchStatements(db, { gameId, batchId: params.batchId }, acting, async (r) => {
    await writePrivateFile(path.join(out, `${r.doc.label}.pdf`), r.pdf);
    await writePrivateFile(path.join(out, `${r.doc.label}.csv`), r.csv);
    labels.push(r.doc.label);
    params.onFile?.(r.doc.label);
  });
  return {
    batchId: params.batchId,
    gameId,
    out,
    statements: labels.length,
    firstNumber: labels[0] ?? null,
    lastNumber: labels.at(-1) ?? null,
  };
}
