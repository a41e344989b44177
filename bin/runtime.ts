import path from "node:path";
import pg from "pg";
import {
  clusterUrl,
  type EmbeddedCluster,
  findRunningCluster,
  readLocalSecrets,
  startCluster,
  stopClusterOf,
  withDatabase,
} from "@/db/embedded";

/**
 * Where the database and the key come from. With DATABASE_URL, that server and PAYOUT_DESK_KEY are used as given.
 * Without it, the embedded default: a PostgreSQL cluster under the data directory, and a key generated there on
 * first start. The CLI and `npm start` share it, so both see the same data.
 */
export type Runtime = {
  databaseUrl: string;
  key: string;
  /** PAYOUT_DESK_KEY_PREVIOUS, during a key rotation's rollout. */
  previousKey?: string;
  /** The embedded default's local-secrets.json when the key comes from it (a rotation updates it). */
  keyFile?: string | null;
  embedded: boolean;
  dataDir: string;
  stop(): Promise<void>;
};

const APP_DATABASE = "payout_desk";

export async function prepareRuntime(options: { onLog?: (line: string) => void } = {}): Promise<Runtime> {
  const dataDir = path.resolve(process.env.PAYOUT_DESK_DATA_DIR || ".data");
  const configuredUrl = process.env.DATABASE_URL;
  if (configuredUrl) {
    const key = process.env.PAYOUT_DESK_KEY;
    if (!key)
      throw new Error(
        "PAYOUT_DESK_KEY is required with DATABASE_URL (32 random bytes, base64: openssl rand -base64 32)",
      );
    const previousKey = process.env.PAYOUT_DESK_KEY_PREVIOUS || undefined;
    return {
      databaseUrl: configuredUrl,
      key,
      previousKey,
      keyFile: null,
      embedded: false,
      dataDir,
      stop: async () => {},
    };
  }
  refuseDemoForPublicAddress(process.env.PAYOUT_DESK_URL);
  const secrets = await readLocalSecrets(dataDir);
  const clusterDir = path.join(dataDir, "postgres");
  const { cluster, share } = await joinCluster(clusterDir, secrets.pgPassword, options.onLog);
  const fromFile = !process.env.PAYOUT_DESK_KEY;
  return {
    databaseUrl: withDatabase(cluster.url, APP_DATABASE),
    key: process.env.PAYOUT_DESK_KEY || secrets.key,
    previousKey: process.env.PAYOUT_DESK_KEY_PREVIOUS || (fromFile ? secrets.previousKey : undefined),
    keyFile: fromFile ? path.join(dataDir, "local-secrets.json") : null,
    embedded: true,
    dataDir,
    stop: async () => {
      if (!(await share.last())) return;
      if (cluster.startedHere) await cluster.stop();
      else await stopClusterOf(clusterDir);
      await share.end();
    },
  };
}

/**
 * Starts the embedded cluster, or joins the one running, and takes this process's share of it (below) before
 * anything else uses it. A cluster found stopping (its last user ended as this one began: the share refused or the
 * database shutting down) is waited for, then started afresh.
 */
async function joinCluster(
  clusterDir: string,
  password: string,
  onLog: ((line: string) => void) | undefined,
): Promise<{ cluster: EmbeddedCluster; share: ClusterShare }> {
  for (let tried = 1; ; tried++) {
    const cluster = await startCluster({ clusterDir, password, onLog });
    const adminUrl = clusterUrl(password, cluster.port, "postgres");
    let share: ClusterShare | undefined;
    try {
      share = await shareCluster(adminUrl);
      await ensureDatabase(adminUrl, APP_DATABASE);
      return { cluster, share };
    } catch (error) {
      await share?.end();
      // The cluster this process started stops with it: nothing is left running behind a failed start (the failure
      // said is the start's, whatever the stop meets).
      if (cluster.startedHere) await cluster.stop().catch(() => {});
      if (cluster.startedHere || tried >= 3 || !isStopping(error)) throw error;
      // Not stopping after all (a server that does not answer, its process id taken by another): said at once.
      if (!(await untilStopped(clusterDir))) throw error;
    }
  }
}

/**
 * PostgreSQL's own words for a server going away: shutting down (57P01, 57P03), no longer listening, or the connection
 * ended while it was being made (the driver's error, with no code).
 */
function isStopping(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === "57P01" || code === "57P03" || code === "ECONNREFUSED" || code === "ECONNRESET") return true;
  return code === undefined && message === "Connection terminated unexpectedly";
}

/** Whether the cluster found stopping has stopped within 30 s. */
async function untilStopped(clusterDir: string): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (await findRunningCluster(clusterDir)) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** Every process that uses the embedded cluster (`npm start`, `desk worker`, a command) holds this lock shared. */
const CLUSTER_USE_LOCK = 7_302_115_001;

type ClusterShare = {
  /** Whether this process was the last one using the cluster: its share given up, no other share held. */
  last(): Promise<boolean>;
  end(): Promise<void>;
};

/**
 * The embedded cluster is shared by the processes run on one data directory: the app, a worker, commands. Each holds a
 * share of a lock on a connection of its own while it runs, and whichever ends last stops the cluster, whoever
 * started it: a command ended while the app serves leaves the cluster running, and the app's end then stops it. A
 * process that dies gives up its share with its connection.
 */
async function shareCluster(adminUrl: string): Promise<ClusterShare> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: "payout-desk cluster use" });
  // The connection ends with the cluster's stop: nothing to report then.
  client.on("error", () => {});
  await client.connect();
  await client.query("select pg_advisory_lock_shared($1)", [CLUSTER_USE_LOCK]);
  return {
    async last() {
      try {
        await client.query("select pg_advisory_unlock_shared($1)", [CLUSTER_USE_LOCK]);
        // Held while the cluster stops (a fast shutdown, which ends this connection too).
        const result = await client.query<{ alone: boolean }>("select pg_try_advisory_lock($1) as alone", [
          CLUSTER_USE_LOCK,
        ]);
        const alone = result.rows[0]?.alone === true;
        if (!alone) await client.end();
        return alone;
      } catch {
        // The cluster is gone already (stopped by hand): nothing to stop.
        await client.end().catch(() => {});
        return false;
      }
    },
    end: () => client.end().catch(() => {}),
  };
}

/**
 * The embedded default is a demo on this machine: a PAYOUT_DESK_URL people elsewhere reach it at says a deployment
 * whose DATABASE_URL went missing (misspelt, a secret not mounted). Refused, rather than serving that address from a
 * throwaway database seeded with demo users whose passwords are printed.
 */
export function refuseDemoForPublicAddress(publicUrl: string | undefined): void {
  if (!publicUrl || !URL.canParse(publicUrl)) return;
  const host = new URL(publicUrl).hostname.replace(/^\[|\]$/g, "");
  const local = host === "localhost" || host.endsWith(".localhost") || host === "::1" || host.startsWith("127.");
  if (local) return;
  throw new Error(
    `DATABASE_URL is not set, but PAYOUT_DESK_URL is ${publicUrl}: refusing to serve that address from the embedded ` +
      "demo database. Set DATABASE_URL (or leave PAYOUT_DESK_URL unset for the local demo).",
  );
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (exists.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/** Makes the runtime's database and key visible to lib/env.ts (read once, on first use). */
export function exportRuntimeEnv(runtime: Runtime): void {
  process.env.DATABASE_URL = runtime.databaseUrl;
  process.env.PAYOUT_DESK_KEY = runtime.key;
  if (runtime.previousKey) process.env.PAYOUT_DESK_KEY_PREVIOUS = runtime.previousKey;
}
