import "server-only";
import { createHash } from "node:crypto";
import type { Db } from "@/db";
import type { Actor, Via } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { log } from "@/lib/log";
import { csvOutput, type ExportColumn, type ExportRow } from "./csv";
import type { CsvRecords } from "./csv-records";

export type AuditedFile = { rows: number; bytes: number; sha256: string };

export type AuditedCsv = {
  /**
   * The file's bytes. The audit entry of the outcome is written before this ends (or throws), and `onEnd` has run:
   * also when it is closed before its first chunk is read.
   */
  chunks: AsyncGenerator<Buffer, void, undefined>;
  rows(): number;
  /** Set once the last chunk has been read. */
  file(): AuditedFile | null;
};

/**
 * A CSV download recorded in the audit log: "started" before anything is read, then the outcome when the file
 * ends (succeeded with the row count, size and SHA-256 of the file; failed; or aborted when the reader stopped
 * early). Every export goes through it, so every download is audited the same way.
 */
export async function startAuditedCsv(
  db: Db,
  params: {
    columns: readonly ExportColumn[];
    pages: AsyncIterable<ExportRow[] | CsvRecords>;
    bom: boolean;
    audit: { actor: Actor | null; via: Via; action: string; gameId: string | null; target: string | null; id: string };
    detail: Record<string, unknown>;
    /** Run once the file has ended, however it ended (what the pages were read through is given back). */
    onEnd?: () => Promise<unknown>;
  },
): Promise<AuditedCsv> {
  const base = {
    actor: params.audit.actor,
    via: params.audit.via,
    action: params.audit.action,
    gameId: params.audit.gameId,
    target: params.audit.target,
    idempotencyKey: params.audit.id,
  };
  await recordAudit(db, { ...base, outcome: "started", detail: params.detail });
  const output = csvOutput(params.columns, params.pages, { bom: params.bom });
  const hash = createHash("sha256");
  let bytes = 0;
  let file: AuditedFile | null = null;

  async function* audited(): AsyncGenerator<Buffer | null, void, undefined> {
    let outcome = "aborted";
    let failure: string | undefined;
    try {
      // Taken at once below: from then on the generator is inside this try, so closing it before its first chunk
      // still runs the finally.
      yield null;
      for await (const chunk of output.chunks) {
        bytes += chunk.length;
        hash.update(chunk);
        yield chunk;
      }
      outcome = "succeeded";
    } catch (error) {
      outcome = "failed";
      failure = error instanceof Error ? error.message : String(error);
      log.error("export failed", { exportId: params.audit.id, action: params.audit.action, error });
      throw error;
    } finally {
      const sha256 = outcome === "succeeded" ? hash.digest("hex") : undefined;
      if (sha256) file = { rows: output.rows(), bytes, sha256 };
      await recordAudit(db, {
        ...base,
        outcome,
        detail: {
          ...params.detail,
          rows: output.rows(),
          bytes,
          ...(sha256 ? { sha256 } : {}),
          ...(failure ? { error: failure.slice(0, 300) } : {}),
        },
      }).catch((error: unknown) => log.error("export audit entry not written", { exportId: params.audit.id, error }));
      await params.onEnd?.();
    }
  }

  const chunks = audited();
  await chunks.next();
  return { chunks: chunks as AsyncGenerator<Buffer, void, undefined>, rows: output.rows, file: () => file };
}
