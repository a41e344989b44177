import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * SQL has one home: db/queries. These folders hold orchestration and rules and never build SQL, neither with a Kysely
 * query builder nor with a `sql` template.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const SQL_FREE = ["lib/payouts"];
const BUILDERS = new Set([
  "selectFrom",
  "selectNoFrom",
  "insertInto",
  "replaceInto",
  "updateTable",
  "deleteFrom",
  "mergeInto",
  "with",
  "withRecursive",
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry) ? [full] : [];
  });
}

/** Each query builder call and `sql` template of the file, as "line: what". */
function sqlBuilt(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node) => {
    if (ts.isTaggedTemplateExpression(node)) {
      const tag = node.tag.getText(source);
      if (tag === "sql" || tag.startsWith("sql.") || tag.startsWith("sql<")) found.push(`${at(node)}: sql template`);
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const name = node.expression.name.text;
      if (BUILDERS.has(name)) found.push(`${at(node)}: .${name}()`);
    }
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.moduleSpecifier.text === "kysely" &&
      !node.importClause?.isTypeOnly
    ) {
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings) && bindings.elements.some((e) => !e.isTypeOnly))
        found.push(`${at(node)}: imports values from kysely`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("SQL lives in db/queries", () => {
  it("finds a builder call and a sql template (the check itself works)", () => {
    const text = 'import { sql } from "kysely";\nconst a = db.selectFrom("t");\nconst b = sql`select 1`;\n';
    expect(sqlBuilt("x.ts", text)).toEqual(["1: imports values from kysely", "2: .selectFrom()", "3: sql template"]);
  });

  for (const folder of SQL_FREE) {
    it(`${folder} builds no SQL`, () => {
      const offences = sourceFiles(path.join(ROOT, folder)).flatMap((file) =>
        sqlBuilt(file, readFileSync(file, "utf8")).map((o) => `${path.relative(ROOT, file)}:${o}`),
      );
      expect(offences).toEqual([]);
    });
  }
});
