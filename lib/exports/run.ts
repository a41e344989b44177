import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/db";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { formatInstant } from "@/lib/time";
import { exportAvailability } from "./availability";
import { csvOutput } from "./csv";
import { EXPORTS } from "./kinds";
import type { ExportKind, ResolvedTarget } from "./types";

export type ExportActor = { id: string; email: string } | null;

export type ExportRequest = {
  kind: ExportKind;
  snapshotId?: string;
  batchId?: string;
  /** The caller's game: a snapshot or batch of another game is not found. The CLI passes none and exports any. */
  gameId?: string;
  bom: boolean;
  actor: ExportActor;
  via: "web" | "cli";
};

export type ExportSummary = {
  exportId: string;
  kind: ExportKind;
  filename: string;
  gameId: string;
  snapshotId: string;
  batchId: string | null;
  rows: number;
  bytes: number;
  sha256: string;
};

export type StartedExport = {
  exportId: string;
  filename: string;
  target: ResolvedTarget;
  /** The file's bytes. The audit entry of the outcome is written before this ends (or throws). */
  chunks: AsyncGenerator<Buffer, void, undefined>;
  rows(): number;
  /** Set once the last chunk has been read. */
  summary(): ExportSummary | null;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const exportIdSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(UUID, { message: "must be an id such as 0f8c3a52-5b1e-4c7e-9a57-2f4f1a8d6c11", abort: true });

/** What an export would read, or the AppError it is refused with; nothing is audited. */
export async function resolveTarget(db: Db, request: ExportRequest): Promise<ResolvedTarget> {
  const definition = EXPORTS[request.kind];
  let snapshotId = request.snapshotId ?? null;
  let batchId: string | null = null;
  if (request.batchId) {
    if (!UUID.test(request.batchId))
      throw new AppError("INVALID_INPUT", "batch: must be a payout batch id", { field: "batch" });
    let query = db
      .selectFrom("payout_batch")
      .select(["id", "game_id", "snapshot_id", "status"])
      .where("id", "=", request.batchId);
    if (request.gameId) query = query.where("game_id", "=", request.gameId);
    const batch = await query.executeTakeFirst();
    if (!batch)
      throw new AppError(
        "NOT_FOUND",
        `No payout batch ${request.batchId}${request.gameId ? ` in game ${request.gameId}` : ""}.`,
        { field: "batch" },
      );
    batchId = batch.id;
    snapshotId = batch.snapshot_id;
  }
  if (!snapshotId)
    throw new AppError("INVALID_INPUT", "snapshot: give a snapshot id or a payout batch id", { field: "snapshot" });
  if (!UUID.test(snapshotId))
    throw new AppError("INVALID_INPUT", "snapshot: must be a snapshot id", { field: "snapshot" });
  let query = db
    .selectFrom("snapshot")
    .select(["id", "game_id", "version", "window_start", "window_end"])
    .where("id", "=", snapshotId);
  if (request.gameId) query = query.where("game_id", "=", request.gameId);
  const snapshot = await query.executeTakeFirst();
  if (!snapshot)
    throw new AppError("NOT_FOUND", `No snapshot ${snapshotId}${request.gameId ? ` in game ${request.gameId}` : ""}.`, {
      field: "snapshot",
    });

  if (definition.needsBatch && !batchId) {
    const batches = await db
      .selectFrom("payout_batch")
      .select("id")
      .where("snapshot_id", "=", snapshot.id)
      .where("game_id", "=", snapshot.game_id)
      .where("status", "<>", "discarded")
      .execute();
    if (batches.length === 0) {
      throw new AppError(
        "NOT_FOUND",
        `No payout batch is built on snapshot ${snapshot.id} yet: prepare one from the window's payout table.`,
        {
          field: "snapshot",
        },
      );
    }
    if (batches.length > 1)
      throw new AppError("CONFLICT", `Several payout batches use snapshot ${snapshot.id}: give the batch id.`, {
        field: "batch",
      });
    batchId = (batches[0] as { id: string }).id;
  }
  if (batchId) {
    const batch = await db
      .selectFrom("payout_batch")
      .select("status")
      .where("id", "=", batchId)
      .executeTakeFirstOrThrow();
    const available = exportAvailability(request.kind, batch);
    if (!available.ok)
      throw new AppError("CONFLICT", `Batch ${batchId} is ${batch.status}. ${available.reason}`, { field: "batch" });
  }
  return {
    gameId: snapshot.game_id,
    snapshotId: snapshot.id,
    snapshotVersion: snapshot.version,
    windowStartMs: snapshot.window_start.getTime(),
    windowEndMs: snapshot.window_end.getTime(),
    batchId,
  };
}

function fileBound(ms: number): string {
  const iso = formatInstant(ms);
  return iso.endsWith("T00:00:00Z") ? iso.slice(0, 10) : iso.replace(/[-:]/g, "").replace(/\.\d+/, "");
}

/** "demo-game_lines_2026-03-01_2026-04-01_v2.csv": safe in a Content-Disposition header and on any file system. */
export function exportFilename(kind: ExportKind, target: ResolvedTarget): string {
  const game = target.gameId.replace(/[^A-Za-z0-9-]+/g, "-").slice(0, 60);
  const batch = target.batchId ? `_batch-${target.batchId.slice(0, 8)}` : "";
  return `${game}_${kind}_${fileBound(target.windowStartMs)}_${fileBound(target.windowEndMs)}_v${target.snapshotVersion}${batch}.csv`;
}

/**
 * Opens an export: checks what is asked for, records "started" in the audit log, and returns the file as a
 * stream of chunks that records the outcome (succeeded with the row count, size and SHA-256 of the file; failed;
 * or aborted when the reader stopped early) when it ends. Nothing is read until the chunks are.
 */
export async function startExport(db: Db, request: ExportRequest): Promise<StartedExport> {
  const definition = EXPORTS[request.kind];
  const target = await resolveTarget(db, request);
  const exportId = randomUUID();
  const filename = exportFilename(request.kind, target);
  const auditBase = {
    actor: request.actor,
    action: `export.${request.kind}`,
    gameId: target.gameId,
    target: target.batchId ?? target.snapshotId,
    idempotencyKey: exportId,
  };
  const about = {
    kind: request.kind,
    via: request.via,
    snapshot_id: target.snapshotId,
    snapshot_version: target.snapshotVersion,
    batch_id: target.batchId,
    window_start: formatInstant(target.windowStartMs),
    window_end: formatInstant(target.windowEndMs),
    filename,
    bom: request.bom,
  };
  await recordAudit(db, { ...auditBase, outcome: "started", detail: about });

  const output = csvOutput(definition.columns, definition.pages(db, target), { bom: request.bom });
  const hash = createHash("sha256");
  let bytes = 0;
  let summary: ExportSummary | null = null;

  async function* audited(): AsyncGenerator<Buffer, void, undefined> {
    let outcome = "aborted";
    let failure: string | undefined;
    try {
      for await (const chunk of output.chunks) {
        bytes += chunk.length;
        hash.update(chunk);
        yield chunk;
      }
      outcome = "succeeded";
    } catch (error) {
      outcome = "failed";
      failure = error instanceof Error ? error.message : String(error);
      log.error("export failed", { exportId, kind: request.kind, snapshotId: target.snapshotId, error });
      throw error;
    } finally {
      const sha256 = outcome === "succeeded" ? hash.digest("hex") : undefined;
      if (sha256) {
        summary = {
          exportId,
          kind: request.kind,
          filename,
          gameId: target.gameId,
          snapshotId: target.snapshotId,
          batchId: target.batchId,
          rows: output.rows(),
          bytes,
          sha256,
        };
      }
      await recordAudit(db, {
        ...auditBase,
        outcome,
        detail: {
          ...about,
          rows: output.rows(),
          bytes,
          ...(sha256 ? { sha256 } : {}),
          ...(failure ? { error: failure.slice(0, 300) } : {}),
        },
      }).catch((error: unknown) => log.error("export audit entry not written", { exportId, error }));
    }
  }

  return { exportId, filename, target, chunks: audited(), rows: output.rows, summary: () => summary };
}
