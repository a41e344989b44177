import { KEEP_ALIVE_MS } from "./server-options";
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { z } from "zod";
import { createDb } from "@/db";
import { portSchema, readEnv } from "@/core/env";
import { leaveStopSignalsToCaller } from "@/db/embedded";
import { migrateToLatest } from "@/db/migrate";
import { countAdminUsers } from "@/db/queries/users";
import { decodeKey, serverActionsKey } from "@/lib/crypto";
import { verifyKeys } from "@/lib/keys/check";
import { startMailCatcherOn } from "@/lib/mail/catcher";
import { STOP_SIGNALS } from "@/lib/stop-signal";
import { buildIsCurrent, ensureBuild } from "./build-state";
import { isRunning, stopChild } from "./child-process";
import { CliError, helpText, parseFlags } from "./cli";
import { emulatorStateFile, refuseDemoOnRealDatabase, seedEmbeddedDemo } from "./demo";
import { exportRuntimeEnv, prepareRuntime } from "./runtime";

const ROOT = path.resolve(import.meta.dirname, "..");
const NEXT_BIN = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");

const SPEC = {
  usage: "npm start [-- [--dev] [--port P]]",
  description:
    "Runs Payout Desk. Without DATABASE_URL it starts the embedded default: PostgreSQL under .data/, the service " +
    "emulator with demo data, and demo users.",
  options: {
    dev: {
      type: "boolean" as const,
      description: "Development server with hot reload instead of the production build",
    },
    port: { type: "string" as const, description: "Port for the app (default: PORT or 3000)" },
  },
  schema: z.object({
    dev: z.boolean().default(false),
    port: portSchema.optional(),
  }),
};

async function waitForHealth(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isRunning(child)) throw new Error(`the app exited with ${child.exitCode ?? child.signalCode} while starting`);
    try {
      const response = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the app did not answer on ${url} within ${timeoutMs / 1000} s`);
}

async function main(): Promise<number> {
  const flags = parseFlags(SPEC, process.argv.slice(2));
  if (flags === "help") {
    console.log(helpText(SPEC));
    return 0;
  }
  // --port stands for PORT, which the settings check and the app read.
  if (flags.port !== undefined) process.env.PORT = String(flags.port);
  const fromEnv = portSchema.safeParse(process.env.PORT || "3000");
  if (!fromEnv.success) throw new CliError("PORT must be a port number from 1 to 65535", 2);
  const port = fromEnv.data;
  // Before anything is prepared: a second start beside a running one would otherwise migrate, point the demo game at
  // an emulator of its own (leaving the first one's demo calling an emulator since stopped) and build, then fail.
  if (!(await portIsFree(port)))
    throw new CliError(
      `port ${port} is in use (Payout Desk already running, or another program): stop it, or start on another port ` +
        "with --port",
      1,
    );
  // As the app reads it (its origin); one that is no address is refused with the other settings, below.
  const given = process.env.PAYOUT_DESK_URL;
  const publicUrl = given ? (URL.canParse(given) ? new URL(given).origin : given) : `http://localhost:${port}`;

  const cleanups: (() => Promise<void>)[] = [];
  /** The app once it has answered: its own end ends the start, and a second signal ends it at once. */
  let app: ChildProcess | undefined;
  let stopped: Promise<void> | null = null;
  /** What a step of the start has started, stopped with the rest; at once when the stop has begun meanwhile. */
  const own = (cleanup: () => Promise<void>) => {
    if (stopped) void cleanup().catch(() => {});
    else cleanups.push(cleanup);
  };
  /**
   * Stops, last started first, what this start has started: the app, the build, the mail catcher, the emulator, the
   * database. Once, whoever asks first (a signal, the app ending, a failed start); every caller waits for that stop.
   */
  const stopAll = () => {
    stopped ??= (async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    })();
    return stopped;
  };
  const shutdown = async (code: number) => {
    if (stopped) return;
    await stopAll();
    process.exit(code);
  };
  // A second signal while the stop waits for the app (a request that never ends) ends the app at once.
  const onSignal = () => {
    if (!stopped) void shutdown(0);
    else if (app && isRunning(app)) app.kill("SIGKILL");
  };
  // A signal sent to this process alone stops the embedded cluster too, after the app: not the cluster's own signal
  // hooks, first. (Ctrl-C in a terminal signals PostgreSQL and the app at the same moment as this process.)
  leaveStopSignalsToCaller();
  for (const name of STOP_SIGNALS) process.on(name, onSignal);
  try {
    return await run(flags, port, publicUrl, own, (serving) => {
      app = serving;
      serving.on("exit", (code, signal) => {
        if (stopped) return;
        console.error(`The app stopped (${code !== null ? `exit ${code}` : signal}).`);
        void shutdown(code ?? 1);
      });
    });
  } catch (error) {
    // A start that fails part way (a build, the app not answering in time) leaves nothing of its own running.
    await stopAll();
    throw error;
  }
}

async function run(
  flags: { dev: boolean },
  port: number,
  publicUrl: string,
  own: (cleanup: () => Promise<void>) => void,
  serving: (app: ChildProcess) => void,
): Promise<number> {
  // Owned before it has started: a stop meanwhile waits for the cluster's start, then stops it.
  const starting = prepareRuntime();
  own(() =>
    starting.then(
      (runtime) => runtime.stop(),
      () => {},
    ),
  );
  const runtime = await starting;
  exportRuntimeEnv(runtime);
  console.log(runtime.embedded ? `Database: embedded PostgreSQL under ${runtime.dataDir}` : "Database: DATABASE_URL");
  // Every setting is checked before the database is touched: a start that would refuse a setting migrates nothing.
  readEnv();

  const db = createDb(runtime.databaseUrl, { max: 4 });
  let admins: number;
  try {
    // Refused before anything is written: the demo would be seeded into this database.
    if (!runtime.embedded && process.env.PAYOUT_DESK_EMULATOR === "on") await refuseDemoOnRealDatabase(db);
    // The embedded default has no other instance to stop: it applies every migration itself.
    const migrated = await migrateToLatest(db, { stopped: runtime.embedded });
    if (migrated.applied.length > 0) console.log(`Migrations applied: ${migrated.applied.join(", ")}`);
    // Another key would start an app that fails on the first secret it opens: refuse now, in one line.
    await verifyKeys(db);
    admins = await countAdminUsers(db);
  } finally {
    await db.destroy();
  }

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: runtime.databaseUrl,
    PAYOUT_DESK_KEY: runtime.key,
    // The same for the build and the server, and for every instance with this PAYOUT_DESK_KEY (README, "Deploying");
    // a value set explicitly is kept, as next.config.mjs keeps it for a plain `next start` beside these servers.
    NEXT_SERVER_ACTIONS_ENCRYPTION_KEY:
      process.env.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY || serverActionsKey(decodeKey(runtime.key)),
    PAYOUT_DESK_URL: publicUrl,
    PORT: String(port),
    NEXT_TELEMETRY_DISABLED: "1",
  };

  const demo =
    runtime.embedded || process.env.PAYOUT_DESK_EMULATOR === "on"
      ? await seedEmbeddedDemo(runtime, {
          appUrl: publicUrl,
          withEmulator: process.env.PAYOUT_DESK_EMULATOR !== "off",
        })
      : null;
  if (demo) own(demo.stop);

  // The embedded default catches statement emails itself (admins read them under Outbox): no mail server needed.
  let mailCatcherUrl: string | null = null;
  if (runtime.embedded && !process.env.SMTP_URL) {
    const catcher = await startMailCatcherOn(runtime.databaseUrl);
    own(catcher.stop);
    env.SMTP_URL = catcher.url;
    mailCatcherUrl = catcher.url;
  }

  if (!flags.dev && !buildIsCurrent(ROOT)) {
    console.log("Building Payout Desk (first start or sources changed)…");
    await ensureBuild(ROOT, env, own);
  }

  const serverArgs = flags.dev
    ? ["dev", "-p", String(port)]
    : ["start", "-p", String(port), "--keepAliveTimeout", KEEP_ALIVE_MS];
  const child = spawn(process.execPath, [NEXT_BIN, ...serverArgs], {
    cwd: ROOT,
    env: { ...env, NODE_ENV: flags.dev ? "development" : "production" },
    stdio: ["ignore", "inherit", "inherit"],
  });
  own(() => stopChild(child));
  // Until it answers, its end is a failed start (waitForHealth says so); from then on, the end of the start.
  await waitForHealth(`http://127.0.0.1:${port}`, child, 120_000);
  if (!isRunning(child)) throw new Error(`the app exited with ${child.exitCode ?? child.signalCode} as it answered`);
  serving(child);

  console.log("");
  console.log(`Payout Desk is running at ${publicUrl}`);
  if (demo) {
    if (demo.emulatorUrl) {
      console.log(`Service emulator (demo data): ${demo.emulatorUrl}`);
      console.log(
        `  ${demo.resumed ? "carried on from" : "fresh demo data, saved in"} ${emulatorStateFile(runtime.dataDir)}; ` +
          `clock ${demo.clock} (runs in real time)`,
      );
      if (demo.months)
        console.log(
          `  Demo data in the months ${demo.months.first} to ${demo.months.last} (UTC): snapshot any of them under ` +
            `Payouts.`,
        );
    }
    console.log("Demo sign-ins:");
    for (const user of demo.users)
      console.log(
        `  ${user.role.padEnd(8)} ${user.email}  ` +
          (user.password === null
            ? "password: not known to this start, set since or made another way (`npm run -s desk -- users " +
              `set-password --email ${user.email} --password-file pw.txt\` sets one)`
            : `password: ${user.password}`),
      );
  }
  // A new deployment's first step is an admin, who can then add everyone else in the app.
  if (!demo && admins === 0)
    console.log(
      "No admin yet: create the first one with `npm run -s desk -- users add --email you@studio.example --role admin " +
        "--password-file pw.txt` (README, Pointing it at the real service).",
    );
  if (mailCatcherUrl) console.log(`Mail catcher: ${mailCatcherUrl} (statement emails land in Outbox, for admins)`);
  console.log("Press Ctrl-C to stop.");
  return new Promise<number>(() => {});
}

main().catch((error: unknown) => {
  const code = error instanceof CliError ? error.exitCode : 1;
  console.error(`start: ${(error as Error).message}`);
  process.exit(code);
});

/**
 * Whether no program listens on `port` (as `next start` would, on every address). Any other failure to listen (a port
 * below 1024 for a user) is left for the app's own start to say.
 */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => resolve(error.code !== "EADDRINUSE"));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}
