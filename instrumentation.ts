// Runs once when the app server starts: it refuses to serve with another key than the one the stored secrets are
// sealed with, then starts the background workers in the server process, unless PAYOUT_DESK_JOBS=off (for a
// deployment that runs them elsewhere: `npm run desk -- worker`). On SIGTERM/SIGINT those workers stop gracefully
// before the process exits. The statements' PDF renderer is loaded once the workers run. Whatever the settings, a
// stopping server closes each keep-alive connection once its answer is sent (lib/connection-drain.ts).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { closeConnectionsWhenClosed, DRAIN_LIMITS } = await import("./lib/connection-drain");
  const { env } = await import("./core/env");
  closeConnectionsWhenClosed({ ...DRAIN_LIMITS, drainMs: env().PAYOUT_DESK_DRAIN_SECONDS * 1000 });
  if (!process.env.DATABASE_URL) return;
  const { refuseMismatchedKey } = await import("./lib/keys/startup");
  await refuseMismatchedKey();
  if (process.env.PAYOUT_DESK_JOBS === "off") return;
  const { startWorkers } = await import("./lib/jobs/worker");
  await startWorkers();
  // Loaded now rather than by the first statement a job renders, in the middle of someone's request.
  // A failure here is only logged: the statement job that renders reports its own.
  void import("./lib/statements/pdf-render")
    .then((m) => m.warmStatementRenderer())
    .catch(async (error: unknown) => (await import("./lib/log")).log.warn("PDF renderer not loaded", { error }));
  const { stopWorkersWithServer } = await import("./lib/jobs/server-stop");
  stopWorkersWithServer();
}
