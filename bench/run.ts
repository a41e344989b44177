// Runs one benchmark: `npm run bench -- <name>` imports bench/<name>.ts and calls its exported run().
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const KNOWN = [
  "emulator",
  "snapshot",
  "export",
  "payout-table",
  "pacing",
  "payfile",
  "statements",
  "webhooks-burst",
  "scale",
] as const;

const name = process.argv[2];
if (!name || !/^[a-z][a-z0-9-]*$/.test(name)) {
  process.stderr.write(`usage: npm run bench -- <${KNOWN.join("|")}>\n`);
  process.exit(2);
}
const file = path.resolve(import.meta.dirname, `${name}.ts`);
if (!existsSync(file)) {
  process.stderr.write(`bench: no benchmark named ${name} (bench/${name}.ts)\n`);
  process.exit(2);
}
const mod = (await import(pathToFileURL(file).href)) as { run?: (args: string[]) => Promise<void> | void };
if (typeof mod.run !== "function") {
  process.stderr.write(`bench: bench/${name}.ts exports no run()\n`);
  process.exit(2);
}
await mod.run(process.argv.slice(3));
