import "server-only";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Db } from "@/db";
import { AppError, isAppError } from "@/lib/errors";
import { countOf } from "@/lib/format";
import { type ExportRequest, type ExportSummary, startExport } from "./run";

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
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomUUID()}.partial`);
  const file = createWriteStream(temporary, { flags: "wx", mode: 0o600 });
  await once(file, "open");
  let lastReport = Date.now();
  try {
    const started = await start();
    for await (const chunk of started.chunks) {
      if (!file.write(chunk)) await once(file, "drain");
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
  }
}

/** An export written to a file, exactly as the app's download makes it. */
export async function writeExportFile(
  db: Db,
  request: ExportRequest,
  outPath: string,
  options: { onProgress?: (rows: number) => void; progressEveryMs?: number } = {},
): Promise<ExportSummary & { path: string }> {
  const written = await writeChunksToFile(outPath, () => startExport(db, request), options);
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
 * ("journal.part-2.csv"), each audited as its own download and each asked under the first part's split. Parts are
 * imported together, so a set cut short (the postings changed between two parts, a failure) is removed rather than
 * left to be imported as if it were whole.
 */
export async function writeExportParts(
  db: Db,
  request: Omit<ExportRequest, "part" | "split">,
  outPath: string,
  options: { onProgress?: (rows: number) => void; onPartWritten?: (part: WrittenPart) => void | Promise<void> } = {},
): Promise<WrittenPart[]> {
  const written: WrittenPart[] = [];
  let parts = 1;
  let split: string | undefined;
  try {
    for (let part = 1; part <= parts; part++) {
      const file = await writeExportFile(db, { ...request, part, split }, partPath(outPath, part), options);
      written.push(file);
      parts = file.parts;
      split = file.split ?? undefined;
      await options.onPartWritten?.(file);
    }
    return written;
  } catch (error) {
    await Promise.all(written.map((f) => rm(f.path, { force: true })));
    if (isAppError(error) && error.field === "split")
      throw new AppError(
        "CONFLICT",
        "The batch's postings changed while its parts were written (a payment or a return was recorded), so they " +
          `no longer split as the first part did. The ${countOf(written.length, "part")} written ` +
          `${written.length === 1 ? "was" : "were"} removed; ` +
          "run the export again.",
        { field: "split" },
      );
    throw error;
  }
}
