// The hash of the files a build is made from, so that a build is reused while they are unchanged: the production
// build of the app (bin/build-state.ts) and the compiled command line (bin/desk.mjs). Plain JavaScript, so that the
// command line's launcher can use it before any TypeScript is loaded.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

function walk(dir, skip, out) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (skip.test(full)) continue;
    if (entry.isDirectory()) walk(full, skip, out);
    else out.push(full);
  }
}

/** SHA-256 of every file under `dirs` and each of `files` (under `root`) not matching `skip`: names and bytes. */
export function sourceHash(root, { dirs, files, skip }) {
  const found = [];
  for (const dir of dirs) walk(path.join(root, dir), skip, found);
  for (const file of files) if (existsSync(path.join(root, file))) found.push(path.join(root, file));
  const hash = createHash("sha256");
  for (const file of found.sort()) {
    hash.update(path.relative(root, file));
    hash.update("\0");
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
}
