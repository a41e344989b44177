import { constants } from "node:fs";
import { access, type FileHandle, open, stat } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";

/** A failure to report as one line, with the exit code: 2 for a usage problem, 1 for anything else. */
/** A result printed on stdout like any other, with the exit code that says the command did not do what it was asked. */
export class CliResult {
  constructor(
    readonly value: unknown,
    readonly exitCode: number,
  ) {}
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export type CommandSpec<S extends z.ZodType> = {
  usage: string;
  description: string;
  options: Record<string, { type: "string" | "boolean"; multiple?: boolean; description: string }>;
  schema: S;
};

/**
 * A flag that takes a value but is followed by nothing or by another flag. node:util's parseArgs calls the second
 * case "ambiguous"; the person simply forgot the value, so say that. A value that starts with a dash is written
 * `--flag=-value`.
 */
function missingValue(spec: CommandSpec<z.ZodType>, argv: string[]): string | null {
  for (const [index, token] of argv.entries()) {
    if (token === "--") return null;
    const name = token.startsWith("--") && !token.includes("=") ? token.slice(2) : null;
    if (name === null || spec.options[name]?.type !== "string") continue;
    const next = argv[index + 1];
    if (next === undefined || next.startsWith("-")) return name;
  }
  return null;
}

/** A flag of one value given twice: which one was meant cannot be told (the second would win silently). */
function givenTwice(spec: CommandSpec<z.ZodType>, argv: string[]): string | null {
  const seen = new Set<string>();
  for (const token of argv) {
    if (token === "--") return null;
    if (!token.startsWith("--")) continue;
    const name = token.slice(2).split("=")[0] ?? "";
    const option = spec.options[name];
    if (!option || option.multiple) continue;
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return null;
}

/** Parses flags strictly (unknown flags are errors), then validates them with the command's zod schema. */
export function parseFlags<S extends z.ZodType>(spec: CommandSpec<S>, argv: string[]): z.output<S> | "help" {
  let values: Record<string, unknown>;
  const missing = missingValue(spec, argv);
  if (missing)
    throw new CliError(`--${missing} needs a value (one starting with a dash: --${missing}=-value; see --help)`, 2);
  const twice = givenTwice(spec, argv);
  if (twice) throw new CliError(`--${twice} is given more than once: give it once (see --help)`, 2);
  try {
    const options: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = { help: { type: "boolean" } };
    for (const [name, option] of Object.entries(spec.options)) {
      options[name] = option.multiple ? { type: option.type, multiple: true } : { type: option.type };
    }
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    // A stray word is not echoed: it may be half of a secret typed with a space in it.
    if ((error as { code?: string }).code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")
      throw new CliError("a value was given without a flag (quote a value with spaces; see --help)", 2);
    throw new CliError(`${(error as Error).message.split("\n")[0]} (see --help)`, 2);
  }
  if (values.help) return "help";
  const parsed = spec.schema.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = issue?.path[0] ? flagName(String(issue.path[0])) : "input";
    // A flag left out is "required", not the schema's type complaint about undefined; a rule's own message (give
    // this flag or that one) stands.
    const absent =
      issue !== undefined &&
      issue.code !== "custom" &&
      issue.path.length === 1 &&
      values[String(issue.path[0])] === undefined;
    throw new CliError(`${flag}: ${absent ? "is required" : (issue?.message ?? "invalid")} (see --help)`, 2);
  }
  return parsed.data;
}

export function helpText(spec: CommandSpec<z.ZodType>): string {
  const width = Math.max(...Object.keys(spec.options).map((k) => k.length), 4) + 4;
  const lines = Object.entries(spec.options).map(
    ([name, option]) => `  --${name.padEnd(width)}${option.description}${option.multiple ? " (repeatable)" : ""}`,
  );
  return [
    `Usage: ${spec.usage}`,
    "",
    spec.description,
    "",
    "Options:",
    ...lines,
    `  --${"help".padEnd(width)}Show this help`,
  ].join("\n");
}

export function flagName(field: string): string {
  if (field === "environment") return "--env";
  if (field.startsWith("webhookSecrets")) return "--webhook-secret";
  return `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * A failed command's message: a field is named as the flag it came from; a field of the product's own (an account to
 * map, a split) is not a flag of the command, and its message stands alone.
 */
export function failureMessage(error: unknown, options: CommandSpec<z.ZodType>["options"]): string {
  const issue = error instanceof z.ZodError ? error.issues[0] : undefined;
  const field = error instanceof Error && "field" in error ? (error as { field?: string }).field : undefined;
  const path = issue ? issue.path.join(".") : field;
  const flag = path ? flagName(path) : null;
  const isOption = flag !== null && (issue !== undefined || flag.slice(2) in options);
  return isOption ? `${flag}: ${issue?.message ?? (error as Error).message}` : (error as Error).message;
}

/** A description's first sentence: up to the first full stop that ends one, outside brackets ("README.md", "e.g."). */
export function firstSentence(text: string): string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (c === "." && depth === 0 && (i + 1 === text.length || text[i + 1] === " ")) return text.slice(0, i);
  }
  return text;
}

/**
 * A secret or password read from a file's first line (kept out of ps and shell history), checked by `schema` like
 * one typed; a refusal names the flag and the file, never the value.
 */
export async function secretFromFile(flag: string, file: string, schema: z.ZodType<string>): Promise<string> {
  const text = await readFlagFile(flag, file);
  const parsed = schema.safeParse(text.split(/\r?\n/)[0] ?? "");
  if (!parsed.success) throw new CliError(`--${flag}: the first line of ${file} ${parsed.error.issues[0]?.message}`, 2);
  return parsed.data;
}

/** The most a file named by a flag may hold (an import's limit): a larger one is refused before it is read. */
export const FLAG_FILE_MAX_BYTES = 20_000_000;

/**
 * The text of a file named by a flag; one that cannot be read, or is larger than an import takes, is an input error
 * naming the flag and the reason. A file's size is checked before it is read; a pipe (`/dev/stdin`, a shell's
 * `<(…)`) has none to check, and is read no further than the limit.
 */
export async function readFlagFile(flag: string, file: string): Promise<string> {
  const tooLarge = (size: string) => new CliError(`--${flag}: ${file} is larger than 20 MB (${size}); split it`, 2);
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, "r");
    const info = await handle.stat();
    if (info.isFile() && info.size > FLAG_FILE_MAX_BYTES) throw tooLarge(`${info.size} bytes`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(1 << 20, FLAG_FILE_MAX_BYTES + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > FLAG_FILE_MAX_BYTES) throw tooLarge("more than 20,000,000 bytes");
    }
    return Buffer.concat(chunks, total).toString("utf8");
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`--${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`, 2);
  } finally {
    await handle?.close();
  }
}

export async function isDirectory(target: string): Promise<boolean> {
  try {
    return (await stat(target)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * An `--out` naming a folder to write into, created when missing: refused (exit 2) before anything is read or asked
 * when it names a file, or the nearest folder that exists cannot be written to.
 */
export async function checkOutFolder(out: string): Promise<void> {
  const target = path.resolve(out);
  let at = target;
  for (;;) {
    const found = await stat(at).catch(() => null);
    if (found) {
      if (!found.isDirectory())
        throw new CliError(`--out: ${at} is a file${at === target ? "; name a folder to write into" : ""}`, 2);
      break;
    }
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  try {
    await access(at, constants.W_OK);
  } catch {
    throw new CliError(`--out: the folder ${at} cannot be written to`, 2);
  }
}

/**
 * Where --out writes, checked before anything is made or audited: a file in a folder that exists and can be written
 * to, or with `folder`, an existing folder too.
 */
export async function checkOutPath(out: string, options: { folder?: boolean } = {}): Promise<void> {
  if (await isDirectory(out)) {
    if (!options.folder) throw new CliError(`--out: ${path.resolve(out)} is a folder; name the file to write`, 2);
    try {
      await access(out, constants.W_OK);
    } catch {
      throw new CliError(`--out: the folder ${path.resolve(out)} cannot be written to`, 2);
    }
    return;
  }
  // A path ending in a separator names a folder (path.resolve would drop the separator and check its parent).
  if (out.endsWith("/") || out.endsWith(path.sep))
    throw new CliError(
      options.folder
        ? `--out: the folder ${path.resolve(out)} does not exist`
        : `--out: ${out} names a folder; name the file to write`,
      2,
    );
  const folder = path.dirname(path.resolve(out));
  if (!(await isDirectory(folder))) throw new CliError(`--out: the folder ${folder} does not exist`, 2);
  try {
    await access(folder, constants.W_OK);
  } catch {
    throw new CliError(`--out: the folder ${folder} cannot be written to`, 2);
  }
}
