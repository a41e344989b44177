// The emulator's command line: `npm run emulator -- --port P (--scenario FILE | --demo [--seed N]) [...]`.
import { parseArgs } from "node:util";
import { z } from "zod";
import { parseRateLimitMode } from "./http/rate-limits";
import { DEMO_GAME_ID, DEMO_GAME_SECRET, DEMO_WEBHOOK_SECRET } from "./scenario/demo";
import { StateFileError } from "./ledger/persist";
import { ScenarioError } from "./scenario/load";
import { parseScale, SCALE_DEFAULT, scaleScenario } from "./scenario/scale";
import { type RunningEmulator, startEmulator } from "./server";
import { formatInstant, parseInstant } from "./time";

const HELP = `Service emulator: a stateful stand-in for the service API (see emulator/README.md).

Usage:
  npm run emulator -- --port P (--scenario FILE | --demo [--seed N] | --scale R:N) [options]

Options:
  --port P                 port to listen on (0 picks a free one; default 4010)
  --host H                 interface to listen on (default 127.0.0.1)
  --scenario FILE          load a scenario file (JSON; schema in emulator/scenario.schema.json)
  --scale R:N              a studio paying R recipients from N renewals in one month (100000:1000000 is the size
                           the desk is built for; game scale-studio, secret ${"gs_scale_studio_secret"})
  --scale-month YYYY-MM    the month of --scale (default 2026-10)
  --demo                   load the deterministic demo data instead
  --seed N                 seed of the demo data (default 1)
  --clock ISO              the demo's clock (default ${"2026-11-20T12:00:00Z"})
  --rate-limits MODE       documented (default), off, or scaled:K (K times faster windows and webhook retries)
  --webhook-url URL        register a webhook endpoint (all events) on every game; repeatable
  --webhook-secret S       signing secret of --webhook-url endpoints (default the demo's)
  --state FILE             keep the state in FILE: read at start when it exists, saved after changes and on exit
  --real-time              the clock runs with the wall clock (renewals happen as time passes)
  -h, --help               show this help
`;

const flagsSchema = z
  .object({
    port: z.coerce.number({ message: "must be a port number from 0 to 65535" }).int().min(0).max(65_535).default(4010),
    host: z.string().min(1).default("127.0.0.1"),
    scenario: z.string().min(1).optional(),
    demo: z.boolean().default(false),
    scale: z
      .string()
      .refine((value) => parseScale(value) !== null, { message: "must be RECIPIENTS:RENEWALS, e.g. 100000:1000000" })
      .optional(),
    "scale-month": z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, { message: "must be a month YYYY-MM" })
      .default(SCALE_DEFAULT.month),
    seed: z.coerce
      .number({ message: "must be an integer" })
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .optional(),
    clock: z
      .string()
      .refine((value) => parseInstant(value) !== null, { message: "must be an ISO 8601 timestamp" })
      .optional(),
    "rate-limits": z
      .string()
      .refine((value) => parseRateLimitMode(value) !== null, {
        message: "must be documented, off or scaled:K (K >= 1)",
      })
      .default("documented"),
    "webhook-url": z.array(z.string().url({ message: "must be a URL" })).default([]),
    "webhook-secret": z.string().min(1).optional(),
    state: z.string().min(1).optional(),
    "real-time": z.boolean().default(false),
  })
  .refine(
    (flags) => [flags.scenario !== undefined, flags.demo, flags.scale !== undefined].filter(Boolean).length === 1,
    {
      message: "give exactly one of --scenario FILE or --demo (or --scale R:N)",
      path: ["scenario"],
    },
  )
  .refine((flags) => flags.demo || (flags.seed === undefined && flags.clock === undefined), {
    message: "--seed and --clock apply to --demo only",
    path: ["seed"],
  });

function fail(message: string): never {
  process.stderr.write(`emulator: ${message} (see --help)\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args: process.argv.slice(2),
      options: {
        port: { type: "string" },
        host: { type: "string" },
        scenario: { type: "string" },
        demo: { type: "boolean" },
        scale: { type: "string" },
        "scale-month": { type: "string" },
        seed: { type: "string" },
        clock: { type: "string" },
        "rate-limits": { type: "string" },
        "webhook-url": { type: "string", multiple: true },
        "webhook-secret": { type: "string" },
        state: { type: "string" },
        "real-time": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const parsed = flagsSchema.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    fail(`--${issue?.path.join(".") ?? "?"} ${issue?.message ?? "is invalid"}`);
  }
  const flags = parsed.data;
  let emulator: RunningEmulator;
  try {
    emulator = await startEmulator({
      port: flags.port,
      host: flags.host,
      scenarioFile: flags.scenario,
      scenario: flags.scale
        ? scaleScenario({ ...(parseScale(flags.scale) ?? SCALE_DEFAULT), month: flags["scale-month"] })
        : undefined,
      demo: flags.demo ? { seed: flags.seed ?? 1, clock: flags.clock } : undefined,
      rateLimits: flags["rate-limits"],
      webhookUrl: flags["webhook-url"],
      webhookSecret: flags["webhook-secret"],
      stateFile: flags.state,
      realTimeClock: flags["real-time"],
    });
  } catch (error) {
    if (error instanceof ScenarioError || error instanceof StateFileError) fail(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") fail(`port ${flags.port} is already in use`);
    throw error;
  }
  const ledger = emulator.ledger();
  process.stdout.write(
    `clock ${formatInstant(ledger.now)}; ${ledger.subscriptions.size} subscriptions, ${ledger.periods.size} periods; ` +
      `rate limits ${flags["rate-limits"]}\n`,
  );
  if (flags.demo) {
    process.stdout.write(
      `demo game id ${DEMO_GAME_ID}, secret ${DEMO_GAME_SECRET}, webhook secret ` +
        `${flags["webhook-secret"] ?? DEMO_WEBHOOK_SECRET}\n`,
    );
  }
  // Last, so that a supervisor waiting for this line has everything above.
  process.stdout.write(
    `emulator listening on ${emulator.url} (sandbox at ${emulator.url}/sandbox, admin at ${emulator.url}/__emulator)\n`,
  );
  const stop = (signal: string) => {
    process.stdout.write(`emulator stopping (${signal})\n`);
    void emulator.close().then(() => process.exit(0));
    setTimeout(() => process.exit(0), 3_000).unref();
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

await main();
