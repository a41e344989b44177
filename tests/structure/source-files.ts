import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The repository's root folder. */
export const ROOT = path.resolve(import.meta.dirname, "../..");
export const EXTENSIONS = [".ts", ".tsx"];

/** Every TypeScript source file below `dir` (declaration files and node_modules left out). */
export function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return entry === "node_modules" ? [] : sourceFiles(full);
    return EXTENSIONS.some((ext) => entry.endsWith(ext)) && !entry.endsWith(".d.ts") ? [full] : [];
  });
}

/** The syntax tree of a TypeScript (or TSX) source. */
export function parseSource(fileName: string, text: string): ts.SourceFile {
  const kind = fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
}

/** An import that brings nothing at run time: `import type …`, or only `type` names; erased before anything runs. */
export function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  // `import { type A, type B } from "x"` is erased like `import type` (nothing of the module is used at run time).
  const bindings = clause.namedBindings;
  return (
    !clause.name &&
    !!bindings &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((e) => e.isTypeOnly)
  );
}
