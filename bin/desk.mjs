// `npm run desk`: the command-line program (bin/desk.ts), compiled to JavaScript once for the sources it is made
// from and kept under node_modules/.cache/payout-desk/. Loading TypeScript module by module through the loader
// hooks (bin/register.mjs) cost 2.4 – 2.9 s of CPU at every start of `desk --help`; the compiled program 0.56 –
// 0.65 s, with kysely and zod bundled into it (see BUNDLED).
// A build is named by the hash of its sources, so a changed source makes a new one and concurrent runs never see a
// build half written: each writes its own folder and renames it into place.
import "./node-version.mjs";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { sourceHash } from "./source-hash.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");
const SOURCE_DIRS = ["bin", "core", "db", "lib"];
const SOURCE_FILES = ["package.json", "package-lock.json", "tsconfig.json"];
const SKIP = /\.test\.tsx?$/;
/** Beside the packages, which the compiled program imports from where it lies. */
const CACHE = path.join(ROOT, "node_modules", ".cache", "payout-desk");
const PREFIX = "desk-";
/** Builds kept besides the current one: a long-running worker may still load a chunk of the build it started on. */
const KEEP = 4;

/** Modules marked "server-only" guard the browser bundle; the command line is server code. */
const serverOnly = {
  name: "server-only",
  setup(build) {
    build.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "server-only" }));
    build.onLoad({ filter: /.*/, namespace: "server-only" }, () => ({ contents: "export {};", loader: "js" }));
  },
};

/**
 * Packages compiled into the program. Every command loads kysely and zod, which come as 560 and 250 small ES modules:
 * found, read and linked one by one at each start, they were 0.3 – 0.4 s of a 1 s start. Both are plain ES modules
 * that read no files of their own. better-auth, loaded from node_modules with its own kysely, is handed the program's
 * Kysely instance and uses it through its methods only. Every other package (node's own, those with native parts,
 * files of their own or CommonJS) is loaded from node_modules.
 */
const BUNDLED = /^(kysely|zod)(\/|$)/;
const bundled = {
  name: "bundled",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("@/") || BUNDLED.test(args.path)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

async function compile(target) {
  const { build } = await import("esbuild");
  const temp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await build({
      absWorkingDir: ROOT,
      entryPoints: { desk: "bin/desk.ts" },
      outdir: temp,
      bundle: true,
      splitting: true,
      platform: "node",
      format: "esm",
      target: "node20",
      jsx: "automatic",
      plugins: [serverOnly, bundled],
      sourcemap: "linked",
      logLevel: "error",
    });
    // The folder lies in no package of its own (node_modules ends the search for one): without this, Node reads every
    // chunk twice over to tell whether it is an ES module, a tenth of a start's CPU.
    writeFileSync(path.join(temp, "package.json"), '{ "type": "module" }\n');
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    // Another run renamed the same build into place first: theirs is as good.
    if (!existsSync(path.join(target, "desk.js"))) throw error;
  }
  prune(path.basename(target));
}

function prune(current) {
  const builds = readdirSync(CACHE)
    .filter((name) => name.startsWith(PREFIX) && name !== current && !name.endsWith(".tmp"))
    .map((name) => ({ name, at: statSync(path.join(CACHE, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of builds.slice(KEEP)) rmSync(path.join(CACHE, old.name), { recursive: true, force: true });
}

/**
 * The compiled program's entry for these sources, compiled first if need be; null where it cannot be written (a
 * read-only node_modules), and the sources are then loaded as TypeScript, as before compiling.
 */
async function compiledEntry() {
  const hash = sourceHash(ROOT, { dirs: SOURCE_DIRS, files: SOURCE_FILES, skip: SKIP });
  const target = path.join(CACHE, `${PREFIX}${hash.slice(0, 16)}`);
  const entry = path.join(target, "desk.js");
  if (existsSync(entry)) return entry;
  try {
    mkdirSync(CACHE, { recursive: true });
    await compile(target);
    return entry;
  } catch {
    return null;
  }
}

const entry = await compiledEntry();
// A failure's stack names the TypeScript sources where source maps are on, but reading and parsing each chunk's map
// as it loads is a tenth of a short command's start (70 ms of 0.7 s of CPU). The worker runs for days and its output
// is where an unexpected failure is read, so it starts with them; any command can have them with
// NODE_OPTIONS=--enable-source-maps.
if (entry && process.argv[2] === "worker") process.setSourceMapsEnabled(true);
if (!entry) await import("./register.mjs");
const { runCommandLine } = await import(entry ? pathToFileURL(entry).href : "./desk.ts");
runCommandLine(process.argv.slice(2));
