import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { INPUT_DIRS, INPUT_FILES } from "../../bin/build-state";
import { EXTENSIONS, isTypeOnlyImport, parseSource, ROOT, sourceFiles } from "./source-files";

/**
 * The module graph of the code that runs (app, lib, db, core, bin, emulator): every import and export-from, static or a
 * dynamic import() of a string literal. Type-only imports are left out: they are erased before anything runs.
 */
const FOLDERS = ["app", "lib", "db", "core", "bin", "emulator"];

/** Only "@/…" (tsconfig paths: "@/*" → "./*") and relative specifiers name files of the repo. */
function resolveSpecifier(from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = path.join(ROOT, specifier.slice(2));
  else if (specifier.startsWith(".")) base = path.resolve(path.dirname(from), specifier);
  else return null;
  const stripped = base.replace(/\.(m?js|jsx)$/, "");
  const candidates = [
    base,
    ...EXTENSIONS.map((ext) => stripped + ext),
    ...EXTENSIONS.map((ext) => path.join(base, `index${ext}`)),
  ];
  return candidates.find((file) => existsSync(file) && statSync(file).isFile()) ?? null;
}

function importsOf(file: string): string[] {
  const source = parseSource(file, readFileSync(file, "utf8"));
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && !isTypeOnlyImport(node)) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      !node.isTypeOnly
    ) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      specifiers.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers.flatMap((specifier) => resolveSpecifier(file, specifier) ?? []);
}

type Graph = Map<string, string[]>;

function buildGraph(): Graph {
  const graph: Graph = new Map();
  for (const folder of FOLDERS) {
    for (const file of sourceFiles(path.join(ROOT, folder))) graph.set(file, importsOf(file));
  }
  return graph;
}

/** Tarjan's strongly connected components (iterative, so a deep graph cannot overflow the stack). */
function stronglyConnected(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const target = edges[frame.edge++]!;
        if (!graph.has(target)) continue;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}

const relative = (file: string) => path.relative(ROOT, file);

function importsFromFolder(graph: Graph, from: string, to: string[]): string[] {
  return [...graph.entries()]
    .filter(([file]) => relative(file).startsWith(`${from}${path.sep}`))
    .flatMap(([file, targets]) =>
      targets
        .filter((target) => to.some((folder) => relative(target).startsWith(`${folder}${path.sep}`)))
        .map((target) => `${relative(file)} -> ${relative(target)}`),
    );
}

function cyclesOf(graph: Graph): string[][] {
  return stronglyConnected(graph)
    .filter((component) => component.length > 1 || (graph.get(component[0]!) ?? []).includes(component[0]!))
    .map((component) => component.map(relative).sort());
}

describe("the module graph", () => {
  const graph = buildGraph();

  it("reads the code it checks", () => {
    expect(graph.size).toBeGreaterThan(100);
    // A dynamic import is an edge like any other (the job registry loads its handlers this way).
    expect(graph.get(path.join(ROOT, "lib/jobs/registry.ts"))).toContain(
      path.join(ROOT, "lib/refunds/reconcile-job.handler.ts"),
    );
  });

  it("finds a cycle and a self-import when there are some", () => {
    const file = (name: string) => path.join(ROOT, name);
    const sample: Graph = new Map([
      [file("a.ts"), [file("b.ts")]],
      [file("b.ts"), [file("c.ts")]],
      [file("c.ts"), [file("a.ts"), file("d.ts")]],
      [file("d.ts"), []],
      [file("e.ts"), [file("e.ts")]],
    ]);
    expect(cyclesOf(sample).sort()).toEqual([["a.ts", "b.ts", "c.ts"], ["e.ts"]]);
  });

  it("has no import cycle", () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  it("db/ imports nothing from lib/", () => {
    expect(importsFromFolder(graph, "db", ["lib"])).toEqual([]);
  });

  it("app/ and bin/ write no audit line themselves: the domain function that changes state does", () => {
    const audit = path.join(ROOT, "lib/audit.ts");
    const writers = [...graph.entries()]
      .filter(
        ([file, targets]) => /^(app|bin)\//.test(relative(file).split(path.sep).join("/")) && targets.includes(audit),
      )
      .map(([file]) => relative(file));
    expect(writers).toEqual([]);
  });

  it("the build stamp covers every file the app is built from (a change elsewhere would rebuild nothing)", () => {
    const roots = [
      ...sourceFiles(path.join(ROOT, "app")),
      path.join(ROOT, "proxy.ts"),
      path.join(ROOT, "instrumentation.ts"),
    ];
    const reached = new Set<string>();
    const queue = roots.filter((file) => !/\.test\.tsx?$/.test(file));
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (reached.has(file)) continue;
      reached.add(file);
      queue.push(...(graph.get(file) ?? importsOf(file)));
    }
    expect(reached.size).toBeGreaterThan(100);
    const uncovered = [...reached]
      .map((file) => relative(file).split(path.sep).join("/"))
      .filter((file) => !INPUT_FILES.includes(file) && !INPUT_DIRS.some((dir) => file.startsWith(`${dir}/`)));
    expect(uncovered).toEqual([]);
  });

  it("core/ imports nothing from lib/ or db/", () => {
    expect(importsFromFolder(graph, "core", ["lib", "db"])).toEqual([]);
  });

  it("the modules holding secrets or bank details say they are server-only, and no client module reaches them", () => {
    const held = [
      "lib/crypto.ts",
      "lib/games/games.ts",
      "lib/profiles/details.ts",
      "lib/profiles/seal.ts",
      "lib/profiles/mask.ts",
      "lib/profiles/csv.ts",
      "lib/payments/files.ts",
      "lib/payments/file-access.ts",
      "lib/payments/items.ts",
      ...["pain001", "paypal", "wise", "generic", "types", "csv"].map((name) => `lib/payments/formats/${name}.ts`),
      "lib/webhooks/signing-secrets.ts",
      "lib/mail/transport.ts",
      "core/env.ts",
    ].map((name) => path.join(ROOT, name));
    const unmarked = held.filter((file) => !/^import "server-only";$/m.test(readFileSync(file, "utf8")));
    expect(unmarked.map(relative)).toEqual([]);
    const clientRoots = [...graph.keys()].filter((file) => /^\s*["']use client["']/.test(readFileSync(file, "utf8")));
    expect(clientRoots.length).toBeGreaterThan(10);
    const reached = new Set<string>();
    const queue = [...clientRoots];
    while (queue.length > 0) {
      const file = queue.pop() as string;
      if (reached.has(file)) continue;
      reached.add(file);
      queue.push(...(graph.get(file) ?? []));
    }
    expect(held.filter((file) => reached.has(file)).map(relative)).toEqual([]);
  });
});
