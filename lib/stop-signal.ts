import "server-only";

/** What asks a process of the desk to stop: Ctrl-C, SIGTERM (a supervisor, `kill`) and a closed terminal. */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Runs `work` (synchronous: the process may end right after) when the process is asked to stop by one of the
 * STOP_SIGNALS, then lets the signal end it as it would have without a listener: another listener (the embedded
 * database's stop) ends it itself. Returns what stops listening.
 */
export function whenStopped(work: () => void): () => void {
  const listener = (signal: NodeJS.Signals) => {
    work();
    if (process.listenerCount(signal) === 1) {
      stop();
      process.kill(process.pid, signal);
    }
  };
  const stop = () => {
    for (const signal of STOP_SIGNALS) process.removeListener(signal, listener);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, listener);
  return stop;
}
