import "server-only";
import { parentPort } from "node:worker_threads";
import type { StatementDocument } from "./model";
import { layoutStatementPdf, warmLayout } from "./pdf";

/** A request to the layout thread: a statement to lay out, or `null` to load the engine and fonts. */
export type LayoutRequest = { id: number; doc: StatementDocument | null };
export type LayoutAnswer = { id: number; pdf: Uint8Array } | { id: number; error: string };

// Requests are taken in the order they come; a layout runs to its end before the next one starts.
const port = parentPort;
if (!port) throw new Error("lib/statements/pdf-thread.ts runs as a worker thread only (lib/statements/pdf-render.ts)");
port.on("message", async ({ id, doc }: LayoutRequest) => {
  let answer: LayoutAnswer;
  try {
    if (doc) answer = { id, pdf: new Uint8Array(await layoutStatementPdf(doc)) };
    else {
      await warmLayout();
      answer = { id, pdf: new Uint8Array() };
    }
  } catch (error) {
    // Its message alone: the error reaches a statement's delivery log and audit line, never the server's file paths.
    answer = { id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  port.postMessage(answer);
});
