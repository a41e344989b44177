import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { StatementDocument } from "./model";
import type { LayoutAnswer, LayoutRequest } from "./pdf-thread";

/**
 * Statement PDFs are laid out on a thread of their own (lib/statements/pdf-thread.ts): a long statement takes
 * seconds of layout that would otherwise hold up every page the process serves, and every other job it runs. One
 * thread per process, started by the first request (or `warmStatementRenderer`) and kept; it holds the process open
 * only while a layout is asked of it. A thread that dies fails what it was asking and is started again by the next.
 */
type Pending = { resolve: (pdf: Buffer) => void; reject: (error: Error) => void };
type LayoutThread = { worker: Worker; pending: Map<number, Pending> };

let thread: LayoutThread | null = null;
let nextId = 0;

function entryPath(): string {
  // Not next to the compiled module: the app server runs a bundle, the thread loads the source as the CLI does.
  return path.join(process.cwd(), "lib", "statements", "pdf-thread-entry.mjs");
}

/**
 * NODE_OPTIONS without its export conditions: a thread reads NODE_OPTIONS again, and the PDF library needs React's
 * default build (a process started with `--conditions=react-server`, as the end-to-end tests start the app server,
 * would hand it React's server build).
 */
export function withoutConditions(options = process.env.NODE_OPTIONS ?? ""): string {
  const kept: string[] = [];
  const words = options.split(/\s+/).filter(Boolean);
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (word === "--conditions" || word === "-C") i++;
    else if (!word.startsWith("--conditions=") && !word.startsWith("-C=")) kept.push(word);
  }
  return kept.join(" ");
}

function layoutThread(): LayoutThread {
  if (thread) return thread;
  // Built through Reflect.construct so the app server's bundler does not take the thread's files into the bundle:
  // the thread loads them from the source tree when it starts, the way the command-line programs do.
  const options = { execArgv: [], env: { ...process.env, NODE_OPTIONS: withoutConditions() } };
  const worker: Worker = Reflect.construct(Worker, [entryPath(), options]);
  const started: LayoutThread = { worker, pending: new Map() };
  const failAll = (error: Error) => {
    if (thread === started) thread = null;
    for (const p of started.pending.values()) p.reject(error);
    started.pending.clear();
  };
  worker.on("message", (answer: LayoutAnswer) => {
    const p = started.pending.get(answer.id);
    started.pending.delete(answer.id);
    if (started.pending.size === 0) worker.unref();
    if (!p) return;
    if ("error" in answer) p.reject(new Error(`statement PDF layout failed: ${answer.error}`));
    else p.resolve(Buffer.from(answer.pdf.buffer, answer.pdf.byteOffset, answer.pdf.byteLength));
  });
  worker.on("error", failAll);
  worker.on("exit", (code) => failAll(new Error(`the statement layout thread stopped (exit code ${code})`)));
  worker.unref();
  thread = started;
  return started;
}

function ask(doc: StatementDocument | null): Promise<Buffer> {
  const t = layoutThread();
  const id = ++nextId;
  return new Promise<Buffer>((resolve, reject) => {
    t.pending.set(id, { resolve, reject });
    t.worker.ref();
    t.worker.postMessage({ id, doc } satisfies LayoutRequest);
  });
}

/** One statement's PDF, laid out on the layout thread. */
export function renderStatementPdf(doc: StatementDocument): Promise<Buffer> {
  return ask(doc);
}

/** Starts the layout thread and has it load the layout engine and fonts (the job workers call it when they start). */
export async function warmStatementRenderer(): Promise<void> {
  await ask(null);
}
