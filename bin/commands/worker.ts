import { z } from "zod";
import { type Db, getDb } from "@/db";
import { leaveStopSignalsToCaller } from "@/db/embedded";
import { listAppliedMigrations } from "@/db/queries/health";
import { checkReadiness } from "@/lib/health";
import { verifyKeys } from "@/lib/keys/check";
import { type MailCatcher, startMailCatcherOn } from "@/lib/mail/catcher";
import { onUnheardRejection } from "@/lib/jobs/unheard-rejection";
import { shutDownWorkers, startWorkers } from "@/lib/jobs/worker";
import { STOP_SIGNALS } from "@/lib/stop-signal";
import { exportRuntimeEnv, prepareRuntime } from "../runtime";
import { databaseAddress, databaseFailure } from "../with-db";
import { CliError, type CommandSpec } from "../cli";

const DEFAULT_GRACE_SECONDS = 30;
/** How often a worker started before its release's migrations asks the database again. */
const MIGRATION_POLL_MS = 2000;

const schema = z.object({
  grace: z
    .string()
    .regex(/^\d{1,4}$/, { message: "must be a whole number of seconds", abort: true })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, { message: "must be at least 1 second" })
        .max(3600, { message: "must be at most 3600 seconds" }),
    )
    .optional(),
});

export type WorkerSummary = {
  worker: "stopped";
  signal: NodeJS.Signals;
  jobsFinished: number;
  jobsFailed: number;
  /** Jobs still running when the grace period ended: handed back to the queue, another worker retries them. */
  jobsHandedBack: number;
};

/** The first of the STOP_SIGNALS (a closed terminal stops the worker as SIGTERM does). */
function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      // Stays registered, so a second signal during the stop does not kill the process half-way.
      for (const name of STOP_SIGNALS) {
        process.off(name, stop);
        process.on(name, ignoreRepeat);
      }
      resolve(signal);
    };
    for (const name of STOP_SIGNALS) process.on(name, stop);
  });
}

function ignoreRepeat(signal: NodeJS.Signals): void {
  process.stderr.write(`desk worker: ${signal} again, still stopping\n`);
}

/** Settings whose defaults suit the demo only: what a worker on a real database sends with them, said at its start. */
function warnOfDemoDefaults(): void {
  if (!process.env.PAYOUT_DESK_URL)
    process.stderr.write(
      "desk worker: PAYOUT_DESK_URL is not set: the statement emails it sends link to http://localhost:3000; set it " +
        "to the address people reach the desk at (the web servers' PAYOUT_DESK_URL)\n",
    );
  if (process.env.SMTP_URL && !process.env.SMTP_FROM)
    process.stderr.write(
      "desk worker: SMTP_FROM is not set: statement emails go out from statements@payout-desk.localhost, which a " +
        "mail service refuses; set it to an address the mail server may send from\n",
    );
}

/** Answers from the database that waiting does not change: the worker exits with what to fix instead. */
const PERMANENT = new Set([
  "28P01",
  "28000",
  "3D000",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "ERR_INVALID_URL",
]);

/** A database that cannot be signed in to (a wrong password, no such database, a certificate not trusted) ends it. */
async function refusePermanentFailure(db: Db, where: string | null): Promise<void> {
  const error = await listAppliedMigrations(db).then(
    () => null,
    (e: unknown) => e,
  );
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !PERMANENT.has(code)) return;
  throw (
    databaseFailure(error, where) ??
    new CliError(`the database${where ? ` at ${where}` : ""} refused the connection (${code}): check DATABASE_URL`)
  );
}

/**
 * Waits until the database answers and has every migration this release knows (what readiness checks), saying on
 * stderr what it waits for; resolves with the stop signal when one comes first, else null.
 */
async function untilMigrated(
  db: Db,
  signal: Promise<NodeJS.Signals>,
  where: string | null,
): Promise<NodeJS.Signals | null> {
  let said = "";
  for (;;) {
    const readiness = await checkReadiness(db);
    if (readiness.ready) return null;
    if (readiness.reason === "database_unreachable") await refusePermanentFailure(db, where);
    const waitingFor =
      readiness.reason === "migrations_pending"
        ? `${readiness.pending} migration(s) of this release (run \`npm run desk -- migrate\`)`
        : "the database to answer";
    if (waitingFor !== said) process.stderr.write(`desk worker: waiting for ${waitingFor}\n`);
    said = waitingFor;
    let timer: NodeJS.Timeout | undefined;
    const received = await Promise.race([
      signal,
      new Promise<null>((r) => (timer = setTimeout(r, MIGRATION_POLL_MS, null))),
    ]);
    clearTimeout(timer);
    if (received) return received;
  }
}

/**
 * `desk worker`: the job workers and schedules alone, no web server, for a deployment whose web servers run with
 * PAYOUT_DESK_JOBS=off. Runs until SIGTERM, SIGINT or SIGHUP, then stops gracefully and prints what it did.
 */
export const workerCommand = {
  spec: {
    usage: "npm run desk -- worker [--grace SECONDS]",
    description:
      "Runs the background jobs and their schedules (no web server) until SIGTERM, SIGINT or SIGHUP (a closed " +
      "terminal), once the database " +
      "has every migration of this release (it waits until then and does not migrate). On a stop signal it " +
      "takes no new job, gives the running ones the grace period to finish and hands back any still running, " +
      "then prints a summary.",
    options: {
      grace: {
        type: "string",
        description: `Seconds running jobs get to finish on stop (default ${DEFAULT_GRACE_SECONDS})`,
      },
    },
    schema,
  } satisfies CommandSpec<typeof schema>,
  async run(flags: z.output<typeof schema>): Promise<WorkerSummary> {
    leaveStopSignalsToCaller();
    // A database restart while pg-boss writes a job's outcome would otherwise end the worker (lib/jobs).
    process.on("unhandledRejection", onUnheardRejection);
    const signal = nextStopSignal();
    const runtime = await prepareRuntime();
    exportRuntimeEnv(runtime);
    if (!runtime.embedded) warnOfDemoDefaults();
    let catcher: MailCatcher | null = null;
    let db: Db | null = null;
    try {
      // On the embedded default without SMTP_URL, statement emails go to a mail catcher of its own, as npm start's do
      // (admins read them under Outbox): its send jobs would otherwise fail for want of a mail server. Set before the
      // settings are first read.
      if (runtime.embedded && !process.env.SMTP_URL) {
        catcher = await startMailCatcherOn(runtime.databaseUrl);
        process.env.SMTP_URL = catcher.url;
      }
      db = getDb();
      // A worker of a new release may start before `desk migrate` has run: its jobs would fail on the old schema.
      const stoppedEarly = await untilMigrated(db, signal, databaseAddress(runtime.databaseUrl));
      if (stoppedEarly) {
        process.stderr.write(`desk worker: ${stoppedEarly} before the database was ready: stopped\n`);
        return { worker: "stopped", signal: stoppedEarly, jobsFinished: 0, jobsFailed: 0, jobsHandedBack: 0 };
      }
      // The same refusal as the app server's: jobs open sealed secrets, so another key must not run them.
      await verifyKeys(db);
      const graceSeconds = flags.grace ?? DEFAULT_GRACE_SECONDS;
      try {
        await startWorkers();
      } catch (error) {
        // A start that failed part way (a queue it could not set up) stops the workers it had started, as a stop
        // does: a job one of them had taken is finished or handed back, not left to run past the process.
        await shutDownWorkers({ timeoutMs: graceSeconds * 1000 }).catch(() => undefined);
        throw error;
      }
      process.stderr.write("desk worker: working jobs; stop with SIGTERM, SIGINT or SIGHUP (a closed terminal)\n");
      const received = await signal;
      process.stderr.write(
        `desk worker: ${received}: taking no new jobs, waiting up to ${graceSeconds}s for running ones\n`,
      );
      const counts = await shutDownWorkers({ timeoutMs: graceSeconds * 1000 });
      process.stderr.write("desk worker: stopped\n");
      return {
        worker: "stopped",
        signal: received,
        jobsFinished: counts.jobsFinished,
        jobsFailed: counts.jobsFailed,
        jobsHandedBack: counts.running,
      };
    } finally {
      await db?.destroy();
      await catcher?.stop();
      await runtime.stop();
    }
  },
};
