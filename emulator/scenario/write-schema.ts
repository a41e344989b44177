// Writes emulator/scenario.schema.json from the zod schema: `node --import ./bin/register.mjs
// emulator/scenario/write-schema.ts`.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { scenarioJsonSchemaText } from "./json-schema";

const target = path.resolve(import.meta.dirname, "..", "scenario.schema.json");
await writeFile(target, scenarioJsonSchemaText());
process.stdout.write(`wrote ${target}\n`);
