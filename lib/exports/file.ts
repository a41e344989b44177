import "server-only";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Db } from "@/db";
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
