import "server-only";
import { z } from "zod";
import type { Db } from "@/db";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { exportKindSchema } from "./kinds";
import { type ExportActor, exportIdSchema, type ExportRequest, startExport } from "./run";
import type { ExportKind } from "./types";

/** `?bom=1` asks for a byte-order mark (for spreadsheets); anything else but 0 or nothing is refused. */
export const bomQuerySchema = z
  .enum(["0", "1"], { message: "must be 1 (add a byte-order mark for spreadsheets) or 0" })
  .default("0")
  .transform((v) => v === "1");

/** The byte-order mark a download's query asks for, or an AppError naming the field. */
export function readBomQuery(params: URLSearchParams): boolean {
  const parsed = bomQuerySchema.safeParse(params.get("bom") ?? undefined);
  if (!parsed.success)
    throw new AppError("INVALID_INPUT", `bom: ${parsed.error.issues[0]?.message ?? "is invalid"}`, { field: "bom" });
  return parsed.data;
}

const exportQuerySchema = z
  .object({
    kind: exportKindSchema,
    snapshot: exportIdSchema.optional(),
    batch: exportIdSchema.optional(),
    bom: bomQuerySchema,
    part: z
      .string()
      .regex(/^[1-9]\d{0,4}$/, { message: "must be a part number such as 1", abort: true })
      .transform(Number)
      .optional(),
    split: z
      .string()
      .regex(/^[0-9a-f]{16}$/, { message: "must be the 16 hex digits of a listing's split, as in its links" })
      .optional(),
  })
  .refine((q) => Boolean(q.snapshot) !== Boolean(q.batch), {
    message: "give either a snapshot id or a payout batch id",
    path: ["snapshot"],
  });

export type ExportQuery = {
  kind: ExportKind;
  snapshot?: string;
  batch?: string;
  bom: boolean;
  part?: number;
  split?: string;
};

/** The query of an export download (`?snapshot=` or `?batch=`, `bom`), or an AppError naming the field. */
export function parseExportQuery(kind: string, params: URLSearchParams): ExportQuery {
  const parsed = exportQuerySchema.safeParse({
    kind,
    snapshot: params.get("snapshot") ?? undefined,
    batch: params.get("batch") ?? undefined,
    bom: params.get("bom") ?? undefined,
    part: params.get("part") ?? undefined,
    split: params.get("split") ?? undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? "query");
    throw new AppError("INVALID_INPUT", `${field}: ${issue?.message ?? "is invalid"}`, { field });
  }
  return {
    kind: parsed.data.kind,
    snapshot: parsed.data.snapshot,
    batch: parsed.data.batch,
    bom: parsed.data.bom,
    part: parsed.data.part,
    split: parsed.data.split,
  };
}

/** The export a download's query asks of a game from the web, by `actor` (none: only worked out, never written). */
export function webExportRequest(query: ExportQuery, gameId: string, actor: ExportActor): ExportRequest {
  return {
    kind: query.kind,
    snapshotId: query.snapshot,
    batchId: query.batch,
    part: query.part,
    split: query.split,
    gameId,
    bom: query.bom,
    actor,
    via: "web",
  };
}

/** The query parameters of a download that its refusal page carries over to work the reason out again. */
export const EXPORT_QUERY_NAMES = ["snapshot", "batch", "part", "split", "bom", "game"] as const;

/** Sends a browser to the page that explains why the export of `kind` with this query cannot be made. */
export function refusedExportRedirect(kind: string, params: URLSearchParams): Response {
  const query = new URLSearchParams({ kind });
  for (const name of EXPORT_QUERY_NAMES) {
    const value = params.get(name);
    if (value) query.set(name, value.slice(0, 100));
  }
  return new Response(null, {
    status: 303,
    headers: { Location: `/payouts/export-refused?${query.toString()}`, "Cache-Control": "no-store" },
  });
}

/**
 * An export as an HTTP response: the CSV streamed as it is read from the database. The first chunk is read before
 * answering, so a problem found early (a bad id, a failing query) is a proper error status rather than a
 * truncated 200; a failure later aborts the connection, so a partial file never looks complete.
 */
export async function exportResponse(db: Db, request: ExportRequest, signal?: AbortSignal): Promise<Response> {
  const started = await startExport(db, request);
  return csvDownloadResponse(started, signal);
}

/** How long a download waits for a client that stopped reading before it is cut. */
export const STALLED_CLIENT_MS = 10 * 60_000;

/**
 * A CSV being written, as a download response. Its first chunk is read before answering (see exportResponse); a
 * failure later aborts the connection. `signal`: the request's, aborted when its client goes away before the file
 * ends. A client gone before the answer began (while the first chunk or a reading slot was awaited) is never sent the
 * body, so nothing would cancel it: the reading is stopped then, and its connection and slot given back.
 */
export async function csvDownloadResponse(
  started: {
    exportId: string;
    filename: string;
    chunks: AsyncGenerator<Buffer, void, undefined>;
    /** Of a file in parts: which part this is, of how many, under which split. */
    target?: { part: number; parts: number; split: string | null };
  },
  signal?: AbortSignal,
  stallMs = STALLED_CLIENT_MS,
): Promise<Response> {
  const { chunks } = started;
  const first = await chunks.next();
  // Once, whichever comes first: the client gone (its request's signal) or the body cancelled (both, as a download
  // is cut off mid-file); nothing once the file has ended.
  let ended = false;
  const stop = async (): Promise<void> => {
    if (ended) return;
    ended = true;
    signal?.removeEventListener("abort", onAbort);
    log.info("export cancelled by the client", { exportId: started.exportId });
    await chunks.return(undefined);
  };
  const onAbort = () => {
    stop().catch((error) => log.error("export not stopped", { exportId: started.exportId, error }));
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  let pending: IteratorResult<Buffer, void> | null = first;
  // A client that stays connected and stops reading asks for nothing more: past stallMs the download is cut (the file
  // never ends cleanly, so the client knows), its reading stopped and its connection and slot given back.
  let stalled: ReturnType<typeof setTimeout> | undefined;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      clearTimeout(stalled);
      try {
        const next = pending ?? (await chunks.next());
        pending = null;
        if (next.done) {
          ended = true;
          signal?.removeEventListener("abort", onAbort);
          controller.close();
          return;
        }
        controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
        stalled = setTimeout(() => {
          if (ended) return;
          log.warn("export cut: its client stopped reading", { exportId: started.exportId, stallMs });
          controller.error(new Error("the client stopped reading"));
          stop().catch((error) => log.error("export not stopped", { exportId: started.exportId, error }));
        }, stallMs);
      } catch (error) {
        ended = true;
        signal?.removeEventListener("abort", onAbort);
        controller.error(error);
      }
    },
    cancel: async () => {
      clearTimeout(stalled);
      await stop();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${started.filename}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "X-Export-Id": started.exportId,
      // A file in parts says which part this is and the split its other parts are asked for under.
      ...(started.target && started.target.parts > 1
        ? {
            "X-Export-Part": String(started.target.part),
            "X-Export-Parts": String(started.target.parts),
            "X-Export-Split": started.target.split ?? "",
          }
        : {}),
    },
  });
}
