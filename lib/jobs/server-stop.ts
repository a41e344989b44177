import "server-only";
import { log } from "@/lib/log";
import { shutDownWorkers } from "./worker";

type Exit = (code?: number | string | null) => never;

/**
 * The app server's stop for the workers it runs. On SIGTERM/SIGINT Next.js stops taking requests, lets the pending
 * ones finish, then calls process.exit. The workers stop when the signal arrives (no new job is taken; running ones
 * get `timeoutMs` to finish, then are handed back), and the process's exit waits until they have stopped.
 */
export function stopWorkersWithServer(options: { timeoutMs?: number } = {}): void {
  let stopping: Promise<void> | null = null;
  const exit: Exit = process.exit.bind(process);
  const stop = (signal: NodeJS.Signals) => {
    stopping ??= (async () => {
      log.info("stopping workers", { signal });
      try {
        const counts = await shutDownWorkers(options);
        log.info("workers stopped", counts);
      } catch (error) {
        log.error("workers did not stop cleanly", { error });
      }
      // Alone on the signal (nothing else stops the process on it), end it as the signal would have.
      if (process.listenerCount(signal) === 1) exit(0);
    })();
  };
  // First in line, so the stop has begun before any other listener can call process.exit.
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.prependListener(signal, stop);
  process.exit = ((code?: number | string | null) => {
    if (!stopping) return exit(code);
    void stopping.finally(() => exit(code));
    return undefined as never;
  }) as Exit;
}
