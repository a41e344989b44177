import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXPORTS } from "@/lib/exports/kinds";

/** The README's column lists are what accounting builds imports from: they must match the files exactly. */
const README = readFileSync(path.resolve(import.meta.dirname, "../../README.md"), "utf8");

function documentedColumns(kind: string): { name: string; type: string }[] {
  const heading = README.indexOf(`(\`${kind}\`)`);
  expect(heading, `README documents the ${kind} export`).toBeGreaterThan(0);
  // The columns are a list, one item per column: "- `name` (type): meaning", wrapped onto indented lines.
  const rest = README.slice(heading);
  const first = rest.indexOf("\n- `") + 1;
  const list = rest.slice(first, rest.indexOf("\n\n", first));
  return list
    .split("\n")
    .map((line) => /^- `(\*?[A-Za-z0-9_ ]+)` \(([a-z]+)\):/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[1]!, type: m[2]! }));
}

describe("README, Exports", () => {
  for (const definition of Object.values(EXPORTS)) {
    it(`lists every column of ${definition.kind}, in file order, with its type`, () => {
      expect(documentedColumns(definition.kind)).toEqual(
        definition.columns.map((c) => ({ name: c.name, type: c.type })),
      );
    });
  }
});
