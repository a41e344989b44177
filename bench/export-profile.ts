// Where the lines export's time goes (`npm run bench -- export --profile`): its parts timed one by one in the bench's
// own process, on the snapshot just measured over HTTP.
import { createHash } from "node:crypto";
import type pg from "pg";
import type { Db } from "@/db";
import { streamCopyOut } from "@/db/queries/copy";
import { copyLineRecords } from "@/db/queries/exports-cells";
import { LINE_COLUMNS, linePages } from "@/lib/exports/lines";
import { startExport } from "@/lib/exports/run";
import { copyOut } from "./export";

const KINDS = Object.fromEntries(
  LINE_COLUMNS.map((c) => [c.name, c.type === "text" || c.type === "decimal" ? c.type : "other"] as const),
);

/** `--lines 100000,1000000 --runs 3 --profile`: sizes (a snapshot each), measured runs, and the parts' profile. */
export function exportBenchOptions(
  args: string[],
  defaults: { lines: number; runs: number },
): { sizes: number[]; runs: number; profile: boolean } {
  const value = (name: string) => {
    const at = args.indexOf(name);
    return at === -1 ? undefined : args[at + 1];
  };
  const sizes = (value("--lines") ?? String(defaults.lines)).split(",").map((n) => Number(n.replace(/_/g, "")));
  const runs = Number(value("--runs") ?? defaults.runs);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(runs) || runs < 1)
    throw new Error("usage: npm run bench -- export [--lines N[,N...]] [--runs R] [--profile]");
  return { sizes, runs, profile: args.includes("--profile") };
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await work();
  return { ms: Math.round(performance.now() - t0), value };
}

/** The floor's SELECT with its instants made text by a cast rather than to_char (as the export's COPY does). */
function withCastInstants(statement: string): string {
  return statement.replace(
    /rtrim\(rtrim\(to_char\(("[^"]+"\."[^"]+") at time zone 'UTC', '[^']+'\), '0'\), '\.'\) \|\| 'Z'/g,
    (_, ref: string) => `replace((${ref} at time zone 'UTC')::text, ' ', 'T') || 'Z'`,
  );
}

/** The plan PostgreSQL makes for a COPY's SELECT (node lines only). */
async function planOf(client: pg.Client, copy: string): Promise<string[]> {
  const select = copy.slice(copy.indexOf("(") + 1, copy.lastIndexOf(") to stdout"));
  const plan = await client.query<{ "QUERY PLAN": string }>(`explain ${select}`);
  return plan.rows.map((r) => r["QUERY PLAN"]).filter((line) => /^\s*(->\s*)?[A-Z]/.test(line));
}

/**
 * The parts of the export, each alone: the export's SELECT as one COPY (read by a bare client), the same read as
 * the export reads it (streamCopyOut), the records made of it (linePages: the CRLF pass), SHA-256 of the file, and
 * the whole export without HTTP (audit entries, header, hash). Also the floor with instants cast, for comparison.
 */
export async function profileExport(
  db: Db,
  client: pg.Client,
  target: { gameId: string; snapshotId: string; lines: number },
  floorStatement: string,
): Promise<Record<string, unknown>> {
  const statement = copyLineRecords(db, { ...target, after: null, kinds: KINDS });
  const bare = await timed(() => copyOut(client, statement));
  const castFloor = await timed(() => copyOut(client, withCastInstants(floorStatement)));
  const streamed = await timed(async () => {
    const output = streamCopyOut(db, statement, { maxBufferedBytes: 1 << 30, pieceBytes: 256 * 1024 });
    for await (const _ of output);
  });
  const hash = createHash("sha256");
  let hashMs = 0;
  const pages = await timed(async () => {
    for await (const records of linePages(db, target)) {
      const t0 = performance.now();
      hash.update(records.bytes);
      hashMs += performance.now() - t0;
    }
  });
  hash.digest();
  const whole = await timed(async () => {
    const started = await startExport(db, {
      kind: "lines",
      snapshotId: target.snapshotId,
      gameId: target.gameId,
      bom: false,
      actor: null,
      via: "cli",
    });
    for await (const _ of started.chunks);
  });
  return {
    note: "each part alone, in the bench process (ms)",
    plans: { floor: await planOf(client, floorStatement), export: await planOf(client, statement) },
    export_select_one_copy_bare_client: { ms: bare.ms, bytes: bare.value },
    floor_with_cast_instants_ms: castFloor.ms,
    export_copy_streamed_ms: streamed.ms,
    line_pages_with_crlf_ms: pages.ms - Math.round(hashMs),
    sha256_ms: Math.round(hashMs),
    export_without_http_ms: whole.ms,
  };
}
