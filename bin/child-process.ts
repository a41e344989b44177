import type { ChildProcess } from "node:child_process";

/** Whether a child process still runs: it has neither exited nor been ended by a signal. */
export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Asks a child process to stop (SIGTERM) and resolves once it has ended; at once for one that has already. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return;
  const ended = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  await ended;
}
