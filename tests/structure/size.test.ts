import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Lines and files of a readable size: no line over 120 columns (Biome's line width, which the formatter cannot
 * enforce on comments, strings and prose) and no source file over 400 lines (split by responsibility).
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const MAX_COLUMNS = 120;
const MAX_LINES = 400;

/** The files git tracks, and new ones it does not ignore. */
function repoFiles(...patterns: string[]): string[] {
  const out = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "--", ...patterns], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return [...new Set(out.split("\n").filter(Boolean))].sort();
}

/** Generated files and test fixtures: their size is the data's, not the code's. */
const GENERATED_OR_FIXTURE = [/(^|\/)__fixtures__\//, /^e2e\/fixtures\//, /(^|\/)next-env\.d\.ts$/];

function lines(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

/** Columns as a reader counts them: characters, not UTF-16 units or bytes. */
function columns(line: string): number {
  return [...line].length;
}

/**
 * Files of other areas still over the line width, each to be wrapped where it is next changed. This list must end
 * empty: take a file off as soon as it passes (the test below fails while a listed file already passes).
 */
const LONG_LINES_ALLOWED: readonly string[] = [];

/**
 * Source files of other areas still over 400 lines, each to be split where it is next changed. This list must end
 * empty: take a file off as soon as it passes (the test below fails while a listed file already passes).
 */
const LONG_FILES_ALLOWED: readonly string[] = [];

describe("source size", () => {
  const sources = repoFiles("*.ts", "*.tsx", "*.mjs").filter((f) => !GENERATED_OR_FIXTURE.some((re) => re.test(f)));

  it(`has no line over ${MAX_COLUMNS} columns in code or Markdown`, () => {
    const files = [...sources, ...repoFiles("*.md")];
    const over = files.flatMap((file) =>
      lines(file).flatMap((line, index) =>
        columns(line) > MAX_COLUMNS ? [`${file}:${index + 1} (${columns(line)} columns)`] : [],
      ),
    );
    expect(over.filter((entry) => !LONG_LINES_ALLOWED.includes(entry.slice(0, entry.lastIndexOf(":"))))).toEqual([]);
    const stillOver = new Set(over.map((entry) => entry.slice(0, entry.lastIndexOf(":"))));
    expect(
      LONG_LINES_ALLOWED.filter((file) => !stillOver.has(file)),
      "files on the allow-list that no longer need it",
    ).toEqual([]);
  });

  it(`has no source file over ${MAX_LINES} lines outside generated files and fixtures`, () => {
    const over = sources.filter((file) => lines(file).length > MAX_LINES);
    expect(over.filter((file) => !LONG_FILES_ALLOWED.includes(file))).toEqual([]);
    expect(
      LONG_FILES_ALLOWED.filter((file) => !over.includes(file)),
      "files on the allow-list that no longer need it",
    ).toEqual([]);
  });
});
