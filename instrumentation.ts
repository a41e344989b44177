// Runs once when the app server starts: the background workers live in the server process, unless
// PAYOUT_DESK_JOBS=off (for a deployment that runs them elsewhere).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  if (process.env.PAYOUT_DESK_JOBS === "off" || !process.env.DATABASE_URL) return;
  const { startWorkers } = await import("./lib/jobs/worker");
  await startWorkers();
}
