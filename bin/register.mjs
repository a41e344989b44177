// Loads TypeScript through tsx and lets command-line programs import modules marked "server-only":
// the marker guards the browser bundle, and a CLI or a test is server code by definition.
import "./node-version.mjs";
// A namespace import: a named one would fail to link on a Node.js without module.register, before the check above.
import * as nodeModule from "node:module";
import { register as registerTsx } from "tsx/esm/api";

registerTsx();
nodeModule.register(
  "data:text/javascript," +
    encodeURIComponent(
      `export async function resolve(specifier, context, next) {
  if (specifier === "server-only") return { url: "data:text/javascript,export {};", shortCircuit: true };
  return next(specifier, context);
}`,
    ),
  import.meta.url,
);
