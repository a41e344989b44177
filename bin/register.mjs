// Loads TypeScript through tsx and lets command-line programs import modules marked "server-only":
// the marker guards the browser bundle, and a CLI or a test is server code by definition.
import { register } from "node:module";
import { register as registerTsx } from "tsx/esm/api";

registerTsx();
register(
  "data:text/javascript," +
    encodeURIComponent(
      `export async function resolve(specifier, context, next) {
  if (specifier === "server-only") return { url: "data:text/javascript,export {};", shortCircuit: true };
  return next(specifier, context);
}`,
    ),
  import.meta.url,
);
