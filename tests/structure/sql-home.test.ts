import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { parseSource, ROOT, sourceFiles } from "./source-files";

/**
 * SQL has one home: every query builder call and every `sql` template lives in db/queries/<area>.ts. lib/ holds
 * orchestration and rules, app/ and bin/ call lib/ (or a query function); none of them builds SQL.
 */
const FOLDERS = ["lib", "app", "bin"];

/**
 * Places that still build SQL outside db/queries while their queries are being moved there. Each entry is a folder
 * (ending in "/") or a file. THIS LIST MUST END EMPTY: remove an entry as soon as its place holds no SQL, and never
 * add one.
 */
const SQL_OUTSIDE_DB_FOR_NOW: readonly string[] = [];

const QUERY_BUILDER_METHODS = new Set([
  "selectFrom",
  "selectNoFrom",
  "insertInto",
  "replaceInto",
  "updateTable",
  "deleteFrom",
  "mergeInto",
]);

const isTest = (file: string) => /\.test\.tsx?$/.test(file);

function isSqlTag(tag: ts.Expression): boolean {
  return ts.isIdentifier(tag) && tag.text === "sql";
}

/** What in this source builds SQL: "selectFrom(" for a query builder call, "sql`" for a template, "import sql". */
function sqlIn(fileName: string, text: string): string[] {
  const source = parseSource(fileName, text);
  const found: string[] = [];
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      QUERY_BUILDER_METHODS.has(node.expression.name.text)
    ) {
      found.push(`${line(node)}: ${node.expression.name.text}(`);
    } else if (ts.isTaggedTemplateExpression(node) && isSqlTag(node.tag)) {
      found.push(`${line(node)}: sql\``);
    } else if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.moduleSpecifier.text === "kysely" &&
      !node.importClause?.isTypeOnly
    ) {
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          const imported = (element.propertyName ?? element.name).text;
          if (imported === "sql" && !element.isTypeOnly) found.push(`${line(node)}: import sql from kysely`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const relative = (file: string) => path.relative(ROOT, file).split(path.sep).join("/");
const covers = (entry: string, file: string) => (entry.endsWith("/") ? file.startsWith(entry) : file === entry);
const excepted = (file: string) => SQL_OUTSIDE_DB_FOR_NOW.some((entry) => covers(entry, file));

function sqlByFile(): Map<string, string[]> {
  const byFile = new Map<string, string[]>();
  for (const folder of FOLDERS) {
    for (const file of sourceFiles(path.join(ROOT, folder)).filter((f) => !isTest(f))) {
      const found = sqlIn(file, readFileSync(file, "utf8"));
      if (found.length > 0) byFile.set(relative(file), found);
    }
  }
  return byFile;
}

describe("SQL has one home (db/queries)", () => {
  const byFile = sqlByFile();

  it("recognises a query builder call, a sql template and an import of sql", () => {
    const sample = [
      'import { sql, type Kysely } from "kysely";',
      'const a = db.selectFrom("game").select("id");',
      "const b = await trx\n  .updateTable('game')\n  .set({ name: 'x' });",
      "const c = sql`select 1`;",
      "const d = sql<{ ok: boolean }>`select true as ok`;",
      "const e = list.filter((x) => x.selected);",
    ].join("\n");
    expect(sqlIn("sample.ts", sample)).toEqual([
      "1: import sql from kysely",
      "2: selectFrom(",
      "3: updateTable(",
      "6: sql`",
      "7: sql`",
    ]);
    expect(
      sqlIn("types.ts", 'import type { Kysely, sql } from "kysely";\nimport { type Transaction } from "kysely";'),
    ).toEqual([]);
  });

  it("finds no SQL in lib/, app/ or bin/ outside the places still being moved", () => {
    const outside = [...byFile.entries()]
      .filter(([file]) => !excepted(file))
      .flatMap(([file, found]) => found.map((where) => `${file}:${where}`));
    expect(outside).toEqual([]);
  });

  it("names only places that exist in the list of places still being moved (the list must end empty)", () => {
    const missing = SQL_OUTSIDE_DB_FOR_NOW.filter((entry) => !existsSync(path.join(ROOT, entry)));
    expect(missing).toEqual([]);
  });
});
