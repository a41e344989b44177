import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { isTypeOnlyImport, parseSource, ROOT } from "./source-files";

/**
 * Every end-to-end spec takes `test` and `expect` from e2e/fixtures/test.ts, whose page runs axe-core after every
 * navigation and dialog (README, "Test it"): a spec that took them from Playwright itself would run with no
 * accessibility check at all, and nothing would say so.
 */
const E2E = path.join(ROOT, "e2e");
const FIXTURE = "./fixtures/test";

type Imported = { from: string; names: string[]; typeOnly: boolean };

function importsOf(file: string): Imported[] {
  const source = parseSource(file, readFileSync(file, "utf8"));
  const found: Imported[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const clause = statement.importClause;
    const bindings = clause?.namedBindings;
    const named = bindings && ts.isNamedImports(bindings) ? bindings.elements : [];
    found.push({
      from: statement.moduleSpecifier.text,
      names: named.filter((e) => !e.isTypeOnly).map((e) => e.name.text),
      typeOnly: isTypeOnlyImport(statement),
    });
  }
  return found;
}

const SPECS = readdirSync(E2E).filter((name) => name.endsWith(".spec.ts"));

describe("end-to-end specs", () => {
  it("are found", () => {
    expect(SPECS.length).toBeGreaterThan(10);
  });

  it.each(SPECS)("%s takes test from the accessibility-checking fixture, nothing from Playwright itself", (name) => {
    const imports = importsOf(path.join(E2E, name));
    const fromPlaywright = imports.filter((i) => i.from === "@playwright/test" && !i.typeOnly);
    expect(fromPlaywright.flatMap((i) => i.names)).toEqual([]);
    expect(imports.find((i) => i.from === FIXTURE)?.names).toContain("test");
  });
});
