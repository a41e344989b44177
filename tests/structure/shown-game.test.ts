import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { parseSource, ROOT, sourceFiles } from "./source-files";

/** Dialogs that act on the selected game: each must say which game its page was shown for (`gameId`). */
const DIALOGS = new Set(["ConfirmDialog", "StatementActionDialog"]);
/** Pages about the whole desk, not one game: their dialogs name none. */
const WHOLE_DESK = ["settings/users", "settings/games"].map((p) => path.join(ROOT, "app/(desk)", p));

function dialogsOf(file: string): { line: number; tag: string; named: boolean }[] {
  const source = parseSource(file, readFileSync(file, "utf8"));
  const found: { line: number; tag: string; named: boolean }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) {
      const tag = node.tagName.getText(source);
      if (DIALOGS.has(tag)) {
        const named = node.attributes.properties.some(
          (p) => ts.isJsxAttribute(p) && p.name.getText(source) === "gameId",
        );
        found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, tag, named });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("dialogs of a game's pages", () => {
  it("each sends the game its page was shown for", () => {
    const files = [...sourceFiles(path.join(ROOT, "app/(desk)")), ...sourceFiles(path.join(ROOT, "app/_components"))]
      .filter((f) => !WHOLE_DESK.some((dir) => f.startsWith(dir)))
      // The components themselves, which pass the prop on.
      .filter((f) => !/confirm-dialog\.tsx$|statement-action-dialog\.tsx$/.test(f));
    const dialogs = files.flatMap((file) =>
      dialogsOf(file).map((d) => ({ ...d, where: `${path.relative(ROOT, file)}:${d.line} <${d.tag}>` })),
    );
    expect(dialogs.length).toBeGreaterThan(15);
    expect(dialogs.filter((d) => !d.named).map((d) => d.where)).toEqual([]);
  });
});
