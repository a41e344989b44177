import "server-only";

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * Runs `work` (synchronous: the process may end right after) when the process is asked to stop with Ctrl-C or
 * SIGTERM, then lets the signal end it as it would have without a listener: another listener (the embedded
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
    for (const signal of SIGNALS) process.removeListener(signal, listener);
  };
  for (const signal of SIGNALS) process.on(signal, listener);
  return stop;
}
