import { z } from "zod";
import type { createDb } from "@/db";
import { keyTextSchema } from "@/core/env";
import { type LocalSecrets, readLocalSecrets, writeLocalSecrets } from "@/db/embedded";
import { migrateToLatest } from "@/db/migrate";
import { readKeyCheck } from "@/db/queries/keys";
import { noteCommandLineRun } from "@/lib/command-line-account";
import { isAppError } from "@/lib/errors";
import { decodeKey, readKeyring } from "@/lib/crypto";
import { keyOf } from "@/lib/keys/check";
import { rotateKey } from "@/lib/keys/rotate";
import { gameIdSchema } from "@/lib/games/schemas";
import { formatProgress, snapshotWindowInputSchema } from "@/lib/snapshots/progress";
import { PullBusyError, PullFailedError, takeSnapshotNow } from "@/lib/snapshots/pull";
import { whenStopped } from "@/lib/stop-signal";
import { formatWindow, type TimeWindow } from "@/lib/time";
import { refuseDemoWithoutEmulator } from "./demo-service";
import { CliError, CliResult, failureMessage, firstSentence, helpText, parseFlags, readFlagFile } from "./cli";
import { payoutCommands } from "./commands/payouts";
import { paymentCommands } from "./commands/payments";
import { profileCommands } from "./commands/profiles";
import { statementCommands } from "./commands/statements";
import { ACCOUNTING_COMMANDS, exportFlagsSchema, runExportCommand } from "./commands/accounting";
import { userCommands } from "./commands/users";
import { workerCommand } from "./commands/worker";
import { gameCommands } from "./commands/games";
import { type Command, withDb } from "./with-db";
import type { Runtime } from "./runtime";

/** Who acts through the command line: nobody signed in. */
const CLI_ACTOR = null;

const COMMANDS: Record<string, Command> = {
  migrate: {
    spec: {
      usage: "npm run desk -- migrate [--earlier-release-stopped]",
      description:
        "Applies every pending database migration. Those that cannot run beside the earlier release (README, " +
        "Deploying) are applied on a database with earlier migrations only with --earlier-release-stopped, once " +
        "every instance of the earlier release has been stopped.",
      options: {
        "earlier-release-stopped": {
          type: "boolean",
          description: "Every instance of the earlier release is stopped: apply the migrations that need it too",
        },
      },
      schema: z.object({ "earlier-release-stopped": z.boolean().default(false) }),
    },
    run: (flags: { "earlier-release-stopped": boolean }) =>
      withDb(
        async (db, runtime) => {
          // The embedded default has no other instance to stop.
          const stopped = flags["earlier-release-stopped"] || runtime.embedded;
          const result = await migrateToLatest(db, { stopped });
          return { migrated: true, applied: result.applied };
        },
        { migrate: false },
      ),
  },
  worker: workerCommand,
  ...statementCommands,
  ...ACCOUNTING_COMMANDS,
  ...userCommands,
  ...gameCommands,
  snapshot: {
    spec: {
      usage: "npm run desk -- snapshot --game ID (--month YYYY-MM | --start DATE --end DATE)",
      description:
        "Pulls a window's attribution report from the service and publishes it as a new snapshot version, in this " +
        "process (the app need not run). Progress goes to stderr, a JSON summary to stdout.",
      options: {
        game: { type: "string", description: "The game id" },
        month: { type: "string", description: "A calendar month (UTC), e.g. 2026-03" },
        start: {
          type: "string",
          description: "Window start, inclusive: ISO date or date-time (UTC unless an offset is given)",
        },
        end: { type: "string", description: "Window end, exclusive" },
      },
      schema: z.object({ game: gameIdSchema }).and(snapshotWindowInputSchema.transform((window) => ({ window }))),
    },
    run: (flags: { game: string; window: TimeWindow }) =>
      withDb(
        async (db) => {
          await refuseDemoWithoutEmulator(db, flags.game);
          let lastLine = 0;
          let lastPhase = "";
          // Stopped (Ctrl-C), the pull is kept, not undone: the job workers (the app, or desk worker) take it up
          // once it is seen abandoned, about a minute later, and publish it once. Said before the process ends.
          const stopListening = whenStopped(() =>
            process.stderr.write(
              `snapshot ${formatWindow(flags.window)}: stopped here. The pull is kept: the job workers (the app, or ` +
                "desk worker) finish and publish it about a minute after they see it abandoned.\n",
            ),
          );
          try {
            return await takeSnapshotNow(
              db,
              { gameId: flags.game, window: flags.window, requestedBy: CLI_ACTOR, via: "cli" },
              {
                onProgress: (progress) => {
                  if (progress.phase === lastPhase && Date.now() - lastLine < 1_000) return;
                  lastLine = Date.now();
                  lastPhase = progress.phase;
                  process.stderr.write(`snapshot ${formatWindow(flags.window)}: ${formatProgress(progress)}\n`);
                },
              },
            );
          } catch (error) {
            if (error instanceof PullFailedError || error instanceof PullBusyError) throw new CliError(error.message);
            throw error;
          } finally {
            stopListening();
          }
        },
        { keys: true },
      ),
  },
  export: {
    spec: {
      usage:
        "npm run desk -- export (--snapshot ID | --batch ID) --kind payouts|lines|reversals|journal|journal-xero|" +
        "journal-quickbooks --out FILE [--bom]\n" +
        "       npm run desk -- export --game ID --kind payee-totals --year YYYY --out FILE [--bom]",
      description:
        "Writes a CSV export for accounting to a file, exactly as the app's download does (columns in README.md, " +
        '"Exports"; payee totals and the ledger files in "Accounting"), and records it in the audit log. ' +
        "A file split into parts (Xero: 300 lines, QuickBooks: 1,000 rows a file) writes its further parts beside " +
        "FILE (journal.csv's second part as journal.part-2.csv, and so on), all under the first part's split: if a " +
        "payment or a " +
        "return changes the split on the way, the parts written are removed and the command fails (run it again). " +
        "Progress goes to stderr, a JSON summary to stdout.",
      options: {
        snapshot: {
          type: "string",
          description: "The snapshot id (payouts and journal use the payout batch built on it)",
        },
        batch: { type: "string", description: "A payout batch id instead of a snapshot id" },
        game: { type: "string", description: "The game (payee-totals)" },
        year: { type: "string", description: "The calendar year of the payment dates (payee-totals)" },
        kind: {
          type: "string",
          description: "payouts | lines | reversals | journal | journal-xero | journal-quickbooks | payee-totals",
        },
        out: { type: "string", description: "The file to write (replaced only once the export is complete)" },
        bom: { type: "boolean", description: "Start the file with a UTF-8 byte-order mark (for spreadsheets)" },
      },
      schema: exportFlagsSchema,
    },
    run: runExportCommand,
  },
  "keys rotate": {
    spec: {
      usage: "npm run desk -- keys rotate --new-key-file FILE",
      description:
        'Re-seals every stored secret with a new key in one transaction and audits it (README, "Keys"). Until it ' +
        "commits the old key opens everything; after it only the new one does. A JSON summary to stdout.",
      options: {
        "new-key-file": {
          type: "string",
          description: "A file holding the new key: 32 random bytes in base64 (openssl rand -base64 32)",
        },
      },
      schema: z.object({ "new-key-file": z.string({ message: "is required" }).min(1, { message: "is required" }) }),
    },
    run: async (flags: { "new-key-file": string }) => {
      // Read and checked before the database is touched, as every command's files are.
      const given = keyTextSchema.safeParse(
        (await readFlagFile("new-key-file", flags["new-key-file"])).split(/\r?\n/)[0]?.trim(),
      );
      if (!given.success) throw new CliError(`--new-key-file: ${given.error.issues[0]?.message}`, 2);
      const text = given.data;
      const newKey = decodeKey(text, "the new key");
      return withDb(
        async (db, runtime) => {
          const before = runtime.keyFile ? await readLocalSecrets(runtime.dataDir) : null;
          if (before) await keepBothKeys(db, runtime, before, text);
          let summary: Awaited<ReturnType<typeof rotateKey>>;
          try {
            summary = await rotateKey(db, { newKey, actor: CLI_ACTOR, via: "cli" });
          } catch (error) {
            // A refusal is made before anything is re-sealed, and rolled back: the file holds what it held.
            if (before && isAppError(error))
              await writeLocalSecrets(runtime.dataDir, before).catch((restoreError: unknown) =>
                process.stderr.write(
                  `keys rotate: ${runtime.keyFile} could not be put back (${String(restoreError)}); ` +
                    "it holds the new key and the current one, which open the secrets as they are\n",
                ),
              );
            throw error;
          }
          if (before) {
            await writeLocalSecrets(runtime.dataDir, { key: text, pgPassword: before.pgPassword });
            process.stderr.write(
              `keys rotate: ${runtime.keyFile} now holds the new key; restart npm start if it runs\n`,
            );
          } else {
            process.stderr.write(
              `keys rotate: sealed with key ${summary.keyId}; ` +
                `set PAYOUT_DESK_KEY to the new key everywhere (README, "Keys")\n`,
            );
          }
          return summary;
        },
        { keys: true },
      );
    },
  },
  ...profileCommands,
  ...payoutCommands,
  ...paymentCommands,
};

/**
 * The embedded default keeps its key in local-secrets.json. Before the rotation it holds the new key and the one
 * the secrets are sealed with now, so that whether the transaction commits or not, the file opens them.
 */
async function keepBothKeys(
  db: ReturnType<typeof createDb>,
  runtime: Runtime,
  before: LocalSecrets,
  newKey: string,
): Promise<void> {
  const check = await readKeyCheck(db);
  const active = check ? keyOf(check, readKeyring()) : null;
  const previousKey = active ? active.toString("base64") : runtime.key;
  await writeLocalSecrets(runtime.dataDir, { key: newKey, previousKey, pgPassword: before.pgPassword });
}

export function registerCommand(name: string, command: Command): void {
  COMMANDS[name] = command;
}

function overview(): string {
  const width = Math.max(16, ...Object.keys(COMMANDS).map((name) => name.length + 2));
  return [
    "Usage: npm run desk -- <command> [options]",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}${firstSentence(c.spec.description)}`),
    "",
    "Each command takes --help. Uses DATABASE_URL, or the embedded default's database (.data/).",
  ].join("\n");
}

/** `out` receives what belongs on stdout: the JSON result, or the help asked for. */
export async function main(
  argv: string[],
  out: (text: string) => void = (text) => process.stdout.write(text),
): Promise<number> {
  const [first, second] = argv;
  if (!first || first === "--help" || first === "help") {
    (first ? out : (text: string) => process.stderr.write(text))(`${overview()}\n`);
    return first ? 0 : 2;
  }
  const twoWord = second && !second.startsWith("-") ? `${first} ${second}` : null;
  const name = twoWord && COMMANDS[twoWord] ? twoWord : first;
  const command = COMMANDS[name];
  if (!command) {
    const group = Object.keys(COMMANDS).filter((k) => k.startsWith(`${first} `));
    if (group.length > 0 && (second === "--help" || second === "help")) {
      out(`${group.map((k) => COMMANDS[k]?.spec.usage ?? k).join("\n")}\n(each with --help for its options)\n`);
      return 0;
    }
    const hint = group.length > 0 ? `; try one of: ${group.join(", ")}` : "; see --help";
    console.error(`desk: unknown command "${[first, second].filter(Boolean).join(" ")}"${hint}`);
    return 2;
  }
  const rest = argv.slice(name.split(" ").length);
  try {
    const flags = parseFlags(command.spec, rest);
    if (flags === "help") {
      out(`${helpText(command.spec)}\n`);
      return 0;
    }
    // The workers' lines are the jobs' own, not a command's someone ran.
    if (name !== "worker") noteCommandLineRun();
    const result = await command.run(flags as never);
    if (result instanceof CliResult) {
      out(`${JSON.stringify(result.value, null, 2)}\n`);
      return result.exitCode;
    }
    out(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    const exitCode = error instanceof CliError ? error.exitCode : 1;
    const message = failureMessage(error, command.spec.options);
    console.error(`desk ${name}: ${message.split("\n")[0]}`);
    return exitCode;
  }
}

/**
 * Runs one command as `npm run desk` does (bin/desk.mjs), then exits with its code. stdout carries the JSON result
 * alone (`desk … > summary.json`): anything else a library or a log line writes there goes to stderr.
 */
export function runCommandLine(argv: string[], run: typeof main = main): void {
  const stdout = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  // A pipe takes a large result after the write returns: the process ends only once stdout has taken all of it (an
  // exit right after the write would cut the JSON at the pipe's 64 KiB and still exit 0).
  let written: Promise<void> = Promise.resolve();
  // A reader that stops early (`| head`) ends the pipe: what the command did stands, and its exit code says so. Any
  // other failure to write (a full disk under `> summary.json`) is a command that did not give its result.
  let unwritten: Error | null = null;
  const failed = (error: Error | null | undefined) => {
    if (error && (error as NodeJS.ErrnoException).code !== "EPIPE") unwritten ??= error;
  };
  process.stdout.on("error", failed);
  const out = (text: string) => {
    written = new Promise((resolve) =>
      stdout(text, (error) => {
        failed(error);
        resolve();
      }),
    );
  };
  run(argv, out)
    .catch((error: unknown) => {
      console.error(`desk: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    })
    .then(async (code) => {
      await written;
      if (unwritten) {
        console.error(`desk: the result could not be written to stdout (${unwritten.message})`);
        process.exit(code === 0 ? 1 : code);
      }
      process.exit(code);
    });
}

if (import.meta.url === `file://${process.argv[1]}`) runCommandLine(process.argv.slice(2));
