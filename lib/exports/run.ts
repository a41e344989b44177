import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { ControlledTransaction } from "kysely";
import type { Db } from "@/db";
import type { Database } from "@/db/types";
import { findExportBatch, findExportSnapshot, getExportBatchStatus, listSnapshotBatchIds } from "@/db/queries/exports";
import type { PayoutBatchStatus } from "@/db/types";
import { AppError } from "@/lib/errors";
import { countOf } from "@/lib/format";
import { windowLabel } from "@/lib/payouts/window-key";
import { formatInstant } from "@/lib/time";
import { exportAvailability } from "./availability";
import { startAuditedCsv } from "./audited";
import { startOneSnapshotReading } from "./reading";
import { bomRefusal, EXPORTS } from "./kinds";
import type { ExportKind, PartsRun, ResolvedTarget } from "./types";
import { UUID } from "@/core/uuid";

export type ExportActor = { id: string; email: string } | null;

export type ExportRequest = {
  kind: ExportKind;
  snapshotId?: string;
  batchId?: string;
  /** Which file of an export split into parts (Xero's 300 lines, QuickBooks' 1,000 rows a file), from 1. */
  part?: number;
  /**
   * The split digest of the listing the part was chosen from (the window page's links carry it): refused when the
   * parts are no longer split that way, so parts of two listings are never mixed.
   */
  split?: string;
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
  part: number;
  parts: number;
  split: string | null;
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

export const exportIdSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(UUID, { message: "must be an id such as 0f8c3a52-5b1e-4c7e-9a57-2f4f1a8d6c11", abort: true });

/** The parts of a file written in one run, on one reading (see PartsRun). */
export type ExportRun = PartsRun & { reading: ControlledTransaction<Database> };

/** What an export would read, or the AppError it is refused with; nothing is audited. */
export async function resolveTarget(db: Db, request: ExportRequest, run?: PartsRun): Promise<ResolvedTarget> {
  const definition = EXPORTS[request.kind];
  const bomRefused = request.bom ? bomRefusal(request.kind) : null;
  if (bomRefused) throw new AppError("INVALID_INPUT", `bom: ${bomRefused}`, { field: "bom" });
  let snapshotId = request.snapshotId ?? null;
  let batchId: string | null = null;
  if (request.batchId) {
    if (!UUID.test(request.batchId))
      throw new AppError("INVALID_INPUT", "batch: must be a payout batch id", { field: "batch" });
    const batch = await findExportBatch(db, { batchId: request.batchId, gameId: request.gameId });
    if (!batch)
      throw new AppError(
        "NOT_FOUND",
        `No payout batch ${request.batchId}${request.gameId ? ` in game ${request.gameId}` : ""}.`,
        { field: "batch" },
      );
    batchId = batch.id;
    snapshotId = batch.snapshotId;
  }
  if (!snapshotId)
    throw new AppError("INVALID_INPUT", "snapshot: give a snapshot id or a payout batch id", { field: "snapshot" });
  if (!UUID.test(snapshotId))
    throw new AppError("INVALID_INPUT", "snapshot: must be a snapshot id", { field: "snapshot" });
  const snapshot = await findExportSnapshot(db, { snapshotId, gameId: request.gameId });
  if (!snapshot)
    throw new AppError("NOT_FOUND", `No snapshot ${snapshotId}${request.gameId ? ` in game ${request.gameId}` : ""}.`, {
      field: "snapshot",
    });

  if (definition.needsBatch && !batchId) {
    const batches = await listSnapshotBatchIds(db, { snapshotId: snapshot.id, gameId: snapshot.gameId });
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
    batchId = batches[0] as string;
  }
  if (batchId) {
    const status = (await getExportBatchStatus(db, { batchId })) as PayoutBatchStatus;
    const available = exportAvailability(request.kind, { status });
    const window = { startMs: snapshot.windowStart.getTime(), endMs: snapshot.windowEnd.getTime() };
    if (!available.ok)
      throw new AppError(
        "CONFLICT",
        `The payout batch of ${windowLabel(window)} (${batchId}) is ${status}. ${available.reason}`,
        { field: "batch" },
      );
  }
  const target: ResolvedTarget = {
    gameId: snapshot.gameId,
    snapshotId: snapshot.id,
    snapshotVersion: snapshot.version,
    windowStartMs: snapshot.windowStart.getTime(),
    windowEndMs: snapshot.windowEnd.getTime(),
    batchId,
    part: 1,
    parts: 1,
    split: null,
  };
  // A format's own refusals (an account not mapped) come before anything is audited or read.
  await definition.check?.(db, target);
  if (definition.parts) {
    const { parts, split } = run?.split ?? (await definition.parts(db, target));
    if (run) run.split = { parts, split };
    target.parts = parts;
    target.split = split;
    target.run = run;
    const part = request.part ?? 1;
    if (request.split !== undefined && request.split !== split)
      throw new AppError(
        "CONFLICT",
        `The ${definition.title} of ${windowLabel({ startMs: target.windowStartMs, endMs: target.windowEndMs })} ` +
          "changed after their parts were listed (a payment or a return was recorded since, or the accounts or date " +
          "order they are written with changed), so this part could repeat, miss or post apart a journal. " +
          "Reload the window page and download every part again; " +
          (definition.kind === "journal-quickbooks"
            ? "delete any entries imported from the earlier parts (QuickBooks posts what it imports)."
            : "delete any drafts imported from the earlier parts."),
        { field: "split" },
      );
    if (part > target.parts)
      throw new AppError(
        "INVALID_INPUT",
        `part: this file has ${countOf(target.parts, "part")}; ask for 1 to ${target.parts}`,
        { field: "part" },
      );
    // A later part is of the listing its first part was downloaded under, or it could repeat or miss a journal.
    if (part > 1 && request.split === undefined)
      throw new AppError(
        "INVALID_INPUT",
        `split: part ${part} of ${target.parts} is served only under the split its first part was downloaded with ` +
          "(the X-Export-Split header of that download, or the window page's part links): a payment or a return " +
          "recorded between two downloads moves the journals between parts. Download part 1 first.",
        { field: "split" },
      );
    target.part = part;
  } else if (request.part !== undefined && request.part !== 1) {
    throw new AppError("INVALID_INPUT", "part: this export is one file", { field: "part" });
  } else if (request.split !== undefined) {
    throw new AppError("INVALID_INPUT", "split: this export is one file", { field: "split" });
  }
  return target;
}

function fileBound(ms: number): string {
  const iso = formatInstant(ms);
  return iso.endsWith("T00:00:00Z") ? iso.slice(0, 10) : iso.replace(/[-:]/g, "").replace(/\.\d+/, "");
}

/** "demo-game_lines_2026-03-01_2026-04-01_v2.csv": safe in a Content-Disposition header and on any file system. */
export function exportFilename(kind: ExportKind, target: ResolvedTarget): string {
  const game = target.gameId.replace(/[^A-Za-z0-9-]+/g, "-").slice(0, 60);
  const batch = target.batchId ? `_batch-${target.batchId.slice(0, 8)}` : "";
  const part = target.parts > 1 ? `_part-${target.part}-of-${target.parts}` : "";
  const window = `${fileBound(target.windowStartMs)}_${fileBound(target.windowEndMs)}`;
  return `${game}_${kind}_${window}_v${target.snapshotVersion}${batch}${part}.csv`;
}

/**
 * Opens an export: checks what is asked for, records "started" in the audit log, and returns the file as a
 * stream of chunks that records the outcome (succeeded with the row count, size and SHA-256 of the file; failed;
 * or aborted when the reader stopped early) when it ends. Nothing is read until the chunks are.
 */
export async function startExport(db: Db, request: ExportRequest, run?: ExportRun): Promise<StartedExport> {
  if (!EXPORTS[request.kind].oneSnapshot) return startExportReading(db, null, request, async () => {});
  // A part of a run is read on the run's reading, which the run ends once every part is written.
  if (run) return startExportReading(db, run.reading, request, async () => {}, run);
  // A payout file or a journal is read, its split check (a file in parts) and its rows alike, from one snapshot of
  // the database: a payment or a return recorded meanwhile can neither move a journal between the check and the rows
  // nor be read half (the statement still paid, its return already there: the payment posted twice).
  const { reading, end } = await startOneSnapshotReading(db);
  try {
    return await startExportReading(db, reading, request, () => end("commit"));
  } catch (error) {
    await end("rollback");
    throw error;
  }
}

async function startExportReading(
  db: Db,
  reading: ControlledTransaction<Database> | null,
  request: ExportRequest,
  finishReading: () => Promise<unknown>,
  run?: PartsRun,
): Promise<StartedExport> {
  const definition = EXPORTS[request.kind];
  const reader = reading ?? db;
  const target = await resolveTarget(reader, request, run);
  const exportId = randomUUID();
  const filename = exportFilename(request.kind, target);
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
    ...(target.parts > 1 ? { part: target.part, parts: target.parts, split: target.split } : {}),
  };
  const output = await startAuditedCsv(db, {
    columns: definition.columns,
    pages: definition.pages(reader, target),
    onEnd: finishReading,
    bom: request.bom,
    audit: {
      actor: request.actor,
      via: request.via,
      action: `export.${request.kind}`,
      gameId: target.gameId,
      target: target.batchId ?? target.snapshotId,
      id: exportId,
    },
    detail: about,
  });
  const summary = (): ExportSummary | null => {
    const file = output.file();
    return file
      ? {
          exportId,
          kind: request.kind,
          filename,
          gameId: target.gameId,
          snapshotId: target.snapshotId,
          batchId: target.batchId,
          ...file,
          part: target.part,
          parts: target.parts,
          split: target.split,
        }
      : null;
  };
  return { exportId, filename, target, chunks: output.chunks, rows: output.rows, summary };
}
