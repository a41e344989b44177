import "server-only";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createWriteStream, rmSync } from "node:fs";
import { rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Db } from "@/db";
import { AppError, isAppError } from "@/lib/errors";
import { countOf } from "@/lib/format";
import { whenStopped } from "@/lib/stop-signal";
import { EXPORTS } from "./kinds";
import { startOneSnapshotReading } from "./reading";
import { type ExportRequest, type ExportRun, type ExportSummary, startExport } from "./run";

/**
 * Files to remove should the process be stopped (Ctrl-C, SIGTERM) before its export completes: the temporary file
 * being written, and the parts already written of a set that is not complete.
 */
const removeOnInterrupt = new Set<string>();
let interruptHooked = false;

function removeNow(): void {
  for (const file of removeOnInterrupt) rmSync(file, { force: true });
  removeOnInterrupt.clear();
}

function removeIfInterrupted(file: string): void {
  if (!interruptHooked) {
    interruptHooked = true;
    whenStopped(removeNow);
    process.on("exit", removeNow);
  }
  removeOnInterrupt.add(file);
}

/** A temporary file beside `target`, hidden, that an interrupted write leaves under no name anyone imports. */
function temporaryBeside(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${randomUUID()}.partial`);
}

/**
 * Writes a file only its owner can read (a payment file holds bank details), also over an existing file, whose mode
 * writeFile would keep: a temporary file beside it, renamed over it once complete, removed should the process be
 * stopped (Ctrl-C) or the write fail meanwhile.
 */
export async function writePrivateFile(target: string, content: string | Uint8Array): Promise<void> {
  const temporary = temporaryBeside(target);
  removeIfInterrupted(temporary);
  try {
    await writeFile(temporary, content, { mode: 0o600, flag: "wx" });
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  } finally {
    removeOnInterrupt.delete(temporary);
  }
}

async function statOf(file: string) {
  return stat(file).catch(() => null);
}

/** Refuses, before anything is read or audited, a destination that cannot become the file: a folder, or no folder. */
async function checkDestination(outPath: string, target: string): Promise<void> {
  if ((await statOf(target))?.isDirectory())
    throw new AppError("INVALID_INPUT", `${outPath} is a folder: name the file to write.`, { field: "out" });
  if (!(await statOf(path.dirname(target)))?.isDirectory())
    throw new AppError("INVALID_INPUT", `The folder of ${outPath} does not exist.`, { field: "out" });
}

/**
 * A file being written (the CLI). It goes to a temporary file beside the target and is renamed into place only when
 * complete, so an interrupted export never leaves a partial file under the requested name. `start` runs once the
 * destination is open: an unwritable destination fails before anything is read or audited.
 */
export async function writeChunksToFile<T extends { chunks: AsyncGenerator<Buffer, void, undefined>; rows(): number }>(
  outPath: string,
  start: () => Promise<T>,
  options: { onProgress?: (rows: number) => void; progressEveryMs?: number } = {},
): Promise<{ started: T; path: string }> {
  const target = path.resolve(outPath);
  await checkDestination(outPath, target);
  const temporary = temporaryBeside(target);
  const file = createWriteStream(temporary, { flags: "wx", mode: 0o600 });
  await once(file, "open");
  removeIfInterrupted(temporary);
  // The stream reports a failed write both to the write's callback, which ends the export, and as an event.
  file.on("error", () => {});
  const written = (chunk: Buffer) =>
    new Promise<void>((resolve, reject) => file.write(chunk, (error) => (error ? reject(error) : resolve())));
  let lastReport = Date.now();
  try {
    const started = await start();
    for await (const chunk of started.chunks) {
      // Each chunk is written before the next is asked for, so the last rows' write (the disk full) fails the export
      // too: thrown into it, its audit line says it failed and why, never that it succeeded.
      await written(chunk).catch((error: unknown) => started.chunks.throw(error));
      if (options.onProgress && Date.now() - lastReport >= (options.progressEveryMs ?? 1_000)) {
        lastReport = Date.now();
        options.onProgress(started.rows());
      }
    }
    file.end();
    await once(file, "finish");
    await rename(temporary, target);
    return { started, path: target };
  } catch (error) {
    file.destroy();
    await rm(temporary, { force: true });
    throw error;
  } finally {
    removeOnInterrupt.delete(temporary);
  }
}

/** An export written to a file, exactly as the app's download makes it. */
export async function writeExportFile(
  db: Db,
  request: ExportRequest,
  outPath: string,
  options: { onProgress?: (rows: number) => void; progressEveryMs?: number } = {},
  run?: ExportRun,
): Promise<ExportSummary & { path: string }> {
  const written = await writeChunksToFile(outPath, () => startExport(db, request, run), options);
  const summary = written.started.summary();
  if (!summary) throw new Error("export ended without a summary");
  return { ...summary, path: written.path };
}

/** "journal.csv" → "journal.part-2.csv": the further parts of a file split into parts, beside the first. */
export function partPath(out: string, part: number): string {
  if (part === 1) return out;
  const dot = out.lastIndexOf(".");
  const slash = out.lastIndexOf("/");
  return dot > slash + 1 ? `${out.slice(0, dot)}.part-${part}${out.slice(dot)}` : `${out}.part-${part}`;
}

export type WrittenPart = ExportSummary & { path: string };

/**
 * An export written as files: the first part under the name given and any further part beside it
 * ("journal.part-2.csv"), each audited as its own download and each asked under the first part's split. A file in
 * parts is read in one run (PartsRun): every part from one snapshot of the database, in one pass over the batch's
 * postings. Parts are imported together, so a set cut short (a failure, the process stopped) is removed rather than
 * left to be imported as if it were whole. An earlier export's further parts under the same name go as soon as the
 * first part replaces theirs: that set is no longer whole, and left beside a set cut short they would be imported as
 * if they were.
 */
export async function writeExportParts(
  db: Db,
  request: Omit<ExportRequest, "part" | "split">,
  outPath: string,
  options: {
    onProgress?: (rows: number) => void;
    onPartWritten?: (part: WrittenPart) => void | Promise<void>;
    /** A part of an earlier export under the same name, beyond this one's parts, was removed (or could not be). */
    onStalePartRemoved?: (path: string, failed?: Error) => void;
  } = {},
): Promise<WrittenPart[]> {
  const written: WrittenPart[] = [];
  let parts = 1;
  let split: string | undefined;
  const definition = EXPORTS[request.kind];
  const reading = definition.parts && definition.oneSnapshot ? await startOneSnapshotReading(db) : null;
  const run: ExportRun | undefined = reading ? { reading: reading.reading, split: null, state: new Map() } : undefined;
  let readingOpen = reading !== null;
  const endReading = async (how: "commit" | "rollback") => {
    if (!reading || !readingOpen) return;
    readingOpen = false;
    await reading.end(how);
  };
  try {
    for (let part = 1; part <= parts; part++) {
      const file = await writeExportFile(db, { ...request, part, split }, partPath(outPath, part), options, run);
      written.push(file);
      parts = file.parts;
      split = file.split ?? undefined;
      if (part === 1) await removeLaterParts(outPath, 1, options.onStalePartRemoved);
      // Until the set is complete, stopping the process removes what it has written: a part alone is not a file
      // to import.
      if (part < parts) removeIfInterrupted(file.path);
      await options.onPartWritten?.(file);
    }
    for (const file of written) removeOnInterrupt.delete(file.path);
  } catch (error) {
    await endReading("rollback").catch(() => {});
    for (const file of written) removeOnInterrupt.delete(file.path);
    await Promise.all(written.map((f) => rm(f.path, { force: true })));
    if (isAppError(error) && error.field === "split")
      throw new AppError(
        "CONFLICT",
        "The batch's postings changed while its parts were written (a payment or a return was recorded, or the " +
          "accounts or date order they are written with changed), so they no longer split as the first part did. " +
          `The ${countOf(written.length, "part")} written ` +
          `${written.length === 1 ? "was" : "were"} removed; ` +
          "run the export again.",
        { field: "split" },
      );
    throw error;
  }
  // The set is written whole: a reading that only read cannot fail it now (a connection lost as it ends loses nothing).
  await endReading("rollback").catch(() => {});
  return written;
}

/**
 * Removes the parts an earlier export under the same name left beyond part `parts` ("journal.part-2.csv" onwards for
 * 1): imported with the new set, or left after a run cut short, they would post the earlier batch's journals again.
 */
async function removeLaterParts(
  outPath: string,
  parts: number,
  onRemoved?: (path: string, failed?: Error) => void,
): Promise<void> {
  for (let part = parts + 1; ; part++) {
    const file = partPath(outPath, part);
    const found = await stat(file).catch(() => null);
    if (!found?.isFile()) return;
    try {
      await rm(file, { force: true });
      onRemoved?.(file);
    } catch (error) {
      onRemoved?.(file, error instanceof Error ? error : new Error(String(error)));
    }
  }
}
