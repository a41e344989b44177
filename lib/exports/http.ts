import "server-only";
import type { Db } from "@/db";
import { log } from "@/lib/log";
import { type ExportRequest, startExport } from "./run";

/**
 * An export as an HTTP response: the CSV streamed as it is read from the database. The first chunk is read before
 * answering, so a problem found early (a bad id, a failing query) is a proper error status rather than a
 * truncated 200; a failure later aborts the connection, so a partial file never looks complete.
 */
export async function exportResponse(db: Db, request: ExportRequest): Promise<Response> {
  const started = await startExport(db, request);
  const { chunks } = started;
  const first = await chunks.next();
  let pending: IteratorResult<Buffer, void> | null = first;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = pending ?? (await chunks.next());
        pending = null;
        if (next.done) controller.close();
        else controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      log.info("export cancelled by the client", { exportId: started.exportId });
      await chunks.return(undefined);
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
    },
  });
}
